// Builds the Studio browser app in memory with Bun's own bundler (hashed, minified assets plus index.html); as a
// script (`bun run studio/build.ts [outdir]`) it writes them to outdir and prints the gzipped first-load size.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";

export type StudioFile = { path: string; body: Uint8Array; type: string; immutable: boolean };

/** Where the hashed assets live; the server serves them with a year-long immutable cache. */
export const ASSET_PREFIX = "/studio/assets/";

const ENTRY = join(import.meta.dir, "src", "main.tsx");
const ICON = join(import.meta.dir, "src", "icon.svg");

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  woff2: "font/woff2",
  png: "image/png",
  map: "application/json",
};

function typeOf(path: string): string {
  return TYPES[path.slice(path.lastIndexOf(".") + 1)] ?? "application/octet-stream";
}

/** A short content hash, so a changed asset gets a new name and an old cached one can never be served for it. */
function hashOf(body: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 10);
}

/** index.html: only hashed same-origin assets, no inline script or style, so the strict CSP holds. */
function indexHtml(scripts: string[], styles: string[], icon: string): string {
  const links = styles.map((href) => `<link rel="stylesheet" href="${href}">`).join("");
  const tags = scripts.map((src) => `<script type="module" src="${src}"></script>`).join("");
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><title>vitrin Studio</title>` +
    `<link rel="icon" href="${icon}" type="image/svg+xml">${links}${tags}</head>` +
    `<body><div id="app"></div><noscript>vitrin Studio needs JavaScript.</noscript></body></html>`
  );
}

/** The whole Studio: `/index.html` plus `/studio/assets/<name>-<hash>.<ext>` files, built in memory. */
export async function buildStudio(): Promise<StudioFile[]> {
  const result = await Bun.build({
    entrypoints: [ENTRY],
    target: "browser",
    format: "esm",
    minify: true,
    // One bundle: every page together is far under the budget, and index.html then names all the first load.
    splitting: false,
    sourcemap: "none",
    publicPath: ASSET_PREFIX,
    naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
  });
  if (!result.success) throw new AggregateError(result.logs, "the Studio did not build");
  const files: StudioFile[] = [];
  const scripts: string[] = [];
  const styles: string[] = [];
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "").split("/").pop()!;
    const path = `${ASSET_PREFIX}${name}`;
    files.push({ path, body: new Uint8Array(await output.arrayBuffer()), type: typeOf(name), immutable: true });
    if (output.kind === "entry-point" && name.endsWith(".js")) scripts.push(path);
    // Bun reports the stylesheet an entry imports as an "asset"; it is the one CSS file, so index.html links it.
    if (name.endsWith(".css")) styles.push(path);
  }
  const iconBody = new Uint8Array(await Bun.file(ICON).arrayBuffer());
  const icon = `${ASSET_PREFIX}icon-${hashOf(iconBody)}.svg`;
  files.push({ path: icon, body: iconBody, type: "image/svg+xml", immutable: true });
  const html = new TextEncoder().encode(indexHtml(scripts, styles, icon));
  files.push({ path: "/index.html", body: html, type: "text/html; charset=utf-8", immutable: false });
  return files;
}

/** The files index.html loads on a first visit (its scripts and stylesheets), for the size budget. */
export function firstLoad(files: StudioFile[]): StudioFile[] {
  const html = new TextDecoder().decode(files.find((f) => f.path === "/index.html")!.body);
  const refs = [...html.matchAll(/<(?:script[^>]*src|link rel="stylesheet" href)="([^"]+)"/g)].map((m) => m[1]);
  return files.filter((f) => refs.includes(f.path));
}

/** Gzipped bytes of what index.html loads at first (JS and CSS); the budget is 150 KB. */
export function firstLoadGzipBytes(files: StudioFile[]): number {
  return firstLoad(files).reduce((sum, f) => sum + gzipSync(f.body, { level: 9 }).length, 0);
}

if (import.meta.main) {
  const outdir = process.argv[2] ?? "dist/studio";
  const files = await buildStudio();
  for (const file of files) {
    const target = join(outdir, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.body);
    console.log(`${file.path}  ${file.body.length} B  (${gzipSync(file.body).length} B gzipped)`);
  }
  console.log(`first load: ${(firstLoadGzipBytes(files) / 1024).toFixed(1)} KB gzipped JS+CSS (budget 150 KB)`);
}
