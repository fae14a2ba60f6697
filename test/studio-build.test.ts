// The Studio build: index.html loads only hashed same-origin assets that exist, with no inline script, and the first
// load (JS + CSS, gzipped) stays within the 150 KB budget; the browser code type-checks under its own DOM tsconfig.
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildStudio, firstLoad, firstLoadGzipBytes, type StudioFile } from "../studio/build";

let files: StudioFile[];
let html: string;

beforeAll(async () => {
  files = await buildStudio();
  html = new TextDecoder().decode(files.find((f) => f.path === "/index.html")!.body);
});

describe("studio build", () => {
  test("first load (what index.html loads, gzipped JS + CSS) is at most 150 KB", () => {
    const loaded = firstLoad(files);
    expect(loaded.some((f) => f.path.endsWith(".js"))).toBe(true);
    expect(loaded.some((f) => f.path.endsWith(".css"))).toBe(true);
    expect(firstLoadGzipBytes(files)).toBeLessThanOrEqual(150 * 1024);
  });

  test("index.html has no inline script or style and names no external URL", () => {
    for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(m[1]).toContain("src=");
      expect(m[2]).toBe("");
    }
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//i);
  });

  test("every asset index.html references exists in the build, hashed under /studio/assets/", () => {
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    const paths = new Set(files.map((f) => f.path));
    for (const ref of refs) {
      expect(ref).toMatch(/^\/studio\/assets\/[\w.-]+-[a-z0-9]{8,}\.(?:js|css|svg)$/);
      expect(paths.has(ref)).toBe(true);
    }
    expect(files.filter((f) => f.path !== "/index.html").every((f) => f.immutable)).toBe(true);
    expect(files.find((f) => f.path === "/index.html")!.immutable).toBe(false);
  });

  test("the built JavaScript and CSS name no host outside the service", () => {
    for (const f of files.filter((f) => /\.(js|css)$/.test(f.path))) {
      const text = new TextDecoder().decode(f.body);
      // Namespace URIs (SVG, XHTML, MathML) are identifiers the DOM needs, and preact's own error text points at its
      // docs; neither is ever fetched. Any other URL would be something the page could load from outside.
      const urls = [...text.matchAll(/https?:\/\/[^\s"'`)]+/g)]
        .map((m) => m[0])
        .filter((u) => !/^http:\/\/www\.w3\.org\/|^https:\/\/github\.com\/preactjs\//.test(u));
      expect(urls).toEqual([]);
    }
  });

  test("the browser code type-checks with the DOM library (studio/tsconfig.json)", () => {
    const tsc = Bun.spawnSync([join(import.meta.dir, "..", "node_modules", ".bin", "tsc"), "--noEmit", "-p", "studio"], {
      cwd: join(import.meta.dir, ".."),
    });
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    expect(tsc.exitCode).toBe(0);
  });
});

describe("studio source rules", () => {
  const root = join(import.meta.dir, "..", "studio");
  const sources = [...new Bun.Glob("**/*.{ts,tsx}").scanSync({ cwd: root })].filter((f) => !f.endsWith(".d.ts")).sort();

  test("every Studio source file opens with a comment and stays within 400 lines", async () => {
    const bad: string[] = [];
    for (const file of sources) {
      const text = await Bun.file(join(root, file)).text();
      if (!text.startsWith("//")) bad.push(`${file}: no opening comment`);
      if (text.split("\n").length > 400) bad.push(`${file}: ${text.split("\n").length} lines`);
    }
    expect(sources.length).toBeGreaterThan(10);
    expect(bad).toEqual([]);
  });

  test("no Studio function (components included) is over 100 lines", async () => {
    // TypeScript 5's JS API parses without a program (the project's TypeScript 7 has no sync parser under Bun).
    const ts = (await import("typescript5")).default;
    const long: string[] = [];
    for (const file of sources) {
      const source = ts.createSourceFile(file, await Bun.file(join(root, file)).text(), ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
      const visit = (node: import("typescript5").Node): void => {
        if (ts.isFunctionLike(node) && (node as { body?: unknown }).body) {
          const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const lines = source.getLineAndCharacterOfPosition(node.end).line - first + 1;
          if (lines > 100) long.push(`${file}:${first + 1} (${lines} lines)`);
        }
        node.forEachChild(visit);
      };
      source.forEachChild(visit);
    }
    expect(long).toEqual([]);
  });
});
