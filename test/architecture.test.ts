// The floor plan, kept: reads the import graph of src/, plugins/ and templates/ and fails on any circle (between files
// or between folders), on any arrow that runs against the layer order, and on a plugin or template that reaches past
// the plugin kit and the template API. docs/architecture.md draws the same order.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { API } from "typescript/unstable/async";
import type { Node, SourceFile } from "typescript/unstable/ast";
import {
  isArrowFunction,
  isConstructorDeclaration,
  isFunctionDeclaration,
  isFunctionExpression,
  isGetAccessorDeclaration,
  isMethodDeclaration,
  isPropertyAssignment,
  isSetAccessorDeclaration,
  isVariableDeclaration,
} from "typescript/unstable/ast/is";

const ROOT = resolve(import.meta.dir, "..");

/**
 * Layers from the bottom: a file may import its own layer's folders (without circles) and the layers below.
 * The domain folders sit on one floor and may use one another, as long as no circle forms between them.
 */
export const LAYERS: string[][] = [
  ["src/kernel"],
  ["src/config"],
  ["src/native", "src/net"],
  ["src/db"],
  ["src/jobs"],
  ["src/plugins", "src/templates"],
  ["src/accounts", "src/products", "src/billing", "src/webhooks", "src/videos", "src/backup", "src/brand", "src/music"],
  // src/studio serves the Studio's built files; it shares the HTTP floor (neither needs the other).
  ["src/http", "src/studio"],
  // The composition root: foundation.ts opens the templates, plugins and database; service.ts wires the rest.
  ["src/foundation.ts"],
  ["src/service.ts"],
  ["src/main.ts"],
];

/** What a plugin folder or a template may import from the rest of the tree. */
const KIT = ["src/plugins", "src/templates/api.ts"];

/**
 * Modules a folder shows besides its index.ts, each for a reason. Everything else another folder wants goes through
 * the folder's index.ts, so a folder can move its insides around without its users noticing.
 */
const FACES = new Set([
  // The template API is the one module templates/* may import; code in src/ that draws brand text uses it the same way.
  "src/templates/api.ts",
  // The plugin kit's two narrow faces (renderer helpers, the shared sharp): plugins import them beside src/plugins.
  "src/plugins/renderer-kit.ts",
  "src/plugins/sharp.ts",
  // The plugin-folder loader and the plugin commands are for the composition root and the command line only: the
  // plugin kit's face (src/plugins/index.ts) is what plugins import, and the loader imports that face itself.
  "src/plugins/load.ts",
  "src/plugins/commands.ts",
  // The command line's plugin commands (`vitrin plugins list`, `vitrin plugins kit DIR`, a plugin's own): for main.ts only.
  "src/plugins/cli.ts",
]);

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|(?:^|\n)\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(): string[] {
  const files: string[] = [];
  for (const dir of ["src", "plugins", "templates"]) {
    for (const f of new Bun.Glob("**/*.{ts,tsx}").scanSync({ cwd: join(ROOT, dir) })) {
      if (!f.endsWith(".d.ts")) files.push(`${dir}/${f}`);
    }
  }
  return files.sort();
}

/** The TypeScript files under `dirs` (declaration files, node_modules and build output aside). */
function treeFiles(dirs: string[]): string[] {
  const files: string[] = [];
  for (const dir of dirs) {
    for (const f of new Bun.Glob("**/*.{ts,tsx}").scanSync({ cwd: join(ROOT, dir) })) {
      if (!f.endsWith(".d.ts") && !f.includes("node_modules/") && !f.startsWith("dist/")) files.push(`${dir}/${f}`);
    }
  }
  return files.sort();
}

/** Resolves a relative import to a tree file (".ts", "/index.ts"); null for packages and non-code files. */
function resolveImport(from: string, spec: string, known: Set<string>): string | null {
  if (!spec.startsWith(".")) return null;
  const base = relative(ROOT, resolve(ROOT, dirname(from), spec));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, base.replace(/\.js$/, ".ts")]) {
    if (known.has(candidate)) return candidate;
  }
  return null;
}

export function importGraph(): Map<string, string[]> {
  const files = sourceFiles();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8");
    const targets = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      // `import type` costs nothing at run time but is still an arrow a reader follows: it counts.
      const target = spec ? resolveImport(file, spec, known) : null;
      if (target && target !== file) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Strongly connected components with more than one member (Tarjan), each sorted. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** The folder a file belongs to for the folder-level picture: its first two path parts (src/db, plugins/storage-s3). */
function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : file;
}

function layerOf(file: string): number {
  for (let i = 0; i < LAYERS.length; i++) {
    if (LAYERS[i]!.some((place) => file === place || file.startsWith(`${place}/`))) return i;
  }
  return -1;
}

/** What a reader calls a function: its own name, or the name of the variable or property it is given to. */
function functionName(node: Node, source: SourceFile): string {
  const named = (n: Node) => (n as { name?: Node }).name?.getText(source);
  const own = isArrowFunction(node) || isFunctionExpression(node) ? undefined : named(node);
  if (own) return own;
  const holder = node.parent;
  if (holder && (isVariableDeclaration(holder) || isPropertyAssignment(holder))) return named(holder) ?? "(anonymous)";
  return isConstructorDeclaration(node) ? "constructor" : "(anonymous)";
}

/** Every function of one file longer than `limit` lines (from its first token to its closing brace), outer and inner alike. */
export function functionsOver(limit: number, file: string, source: SourceFile): string[] {
  const long: string[] = [];
  const visit = (node: Node): void => {
    const isFunction =
      isFunctionDeclaration(node) ||
      isFunctionExpression(node) ||
      isArrowFunction(node) ||
      isMethodDeclaration(node) ||
      isConstructorDeclaration(node) ||
      isGetAccessorDeclaration(node) ||
      isSetAccessorDeclaration(node);
    // A signature without a body (an overload, an interface method) is no room a reader has to walk through.
    if (isFunction && (node as { body?: Node }).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const lines = source.getLineAndCharacterOfPosition(node.end).line - first + 1;
      if (lines > limit) long.push(`${file}:${first + 1} ${functionName(node, source)} (${lines} lines)`);
    }
    node.forEachChild(visit);
  };
  source.forEachChild(visit);
  return long;
}

/**
 * The functions of src/, plugins/ and templates/ over `limit` lines, read with TypeScript's own parser: the typescript
 * package is version 7 (tsgo, written in Go) and its JS API hands back the parsed trees of tsconfig.json's program.
 * (Its sync API reads a Node-only pipe handle that Bun lacks; the async one works.)
 */
export async function longFunctions(limit: number, tsconfig = "tsconfig.json", files = sourceFiles()): Promise<string[]> {
  const api = new API({ cwd: ROOT });
  try {
    const config = join(ROOT, tsconfig);
    const snapshot = await api.updateSnapshot({ openProjects: [config] });
    const program = snapshot.getProject(config)!.program;
    const long: string[] = [];
    for (const file of files) {
      const source = await program.getSourceFile(join(ROOT, file));
      if (!source) throw new Error(`${file} is not in tsconfig.json's program, so its functions cannot be measured`);
      long.push(...functionsOver(limit, file, source));
    }
    return long;
  } finally {
    await api.close();
  }
}

describe("the floor plan", () => {
  const graph = importGraph();

  test("no circle between files", () => {
    expect(circles(graph)).toEqual([]);
  });

  test("no circle between folders", () => {
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      const set = folders.get(from) ?? new Set<string>();
      for (const t of targets) if (folderOf(t) !== from) set.add(folderOf(t));
      folders.set(from, set);
    }
    const folderGraph = new Map([...folders].map(([k, v]) => [k, [...v]]));
    expect(circles(folderGraph)).toEqual([]);
  });

  test("every file of src/ has a layer", () => {
    const homeless = [...graph.keys()].filter((f) => f.startsWith("src/") && layerOf(f) < 0);
    expect(homeless).toEqual([]);
  });

  test("arrows in src/ point down the layers (or across one floor)", () => {
    const against: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith("src/")) continue;
      for (const t of targets) {
        if (!t.startsWith("src/")) {
          // Only the composition root names the built-in lists; nothing else in src/ knows which plugins exist.
          const root = ["src/foundation.ts", "src/service.ts", "src/main.ts"].includes(file) && (t === "plugins/index.ts" || t === "templates/index.ts");
          // Run from source, the server builds the Studio's files itself (the binary carries them instead): only
          // src/studio/from-source.ts reaches studio/build.ts, and scripts/build.ts swaps that module out of the binary.
          const studio = file === "src/studio/from-source.ts" && t === "studio/build.ts";
          if (studio) continue;
          if (!root) against.push(`${file} -> ${t} (only src/foundation.ts, src/service.ts and src/main.ts take in plugins/index.ts and templates/index.ts)`);
          continue;
        }
        if (layerOf(t) > layerOf(file)) against.push(`${file} -> ${t}`);
      }
    }
    expect(against).toEqual([]);
  });

  test("in src/, a file takes another folder's modules only through its face (index.ts)", () => {
    const behind: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith("src/")) continue;
      for (const t of targets) {
        const folder = folderOf(t);
        if (!t.startsWith("src/") || folder === folderOf(file) || folder === t) continue;
        if (t === `${folder}/index.ts` || FACES.has(t)) continue;
        behind.push(`${file} -> ${t} (import ${folder}/index.ts)`);
      }
    }
    expect(behind).toEqual([]);
  });

  test("plugins and templates import only the plugin kit, the template API and their own folder", () => {
    const outside: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith("plugins/") && !file.startsWith("templates/")) continue;
      const own = file.startsWith("plugins/") ? folderOf(file) : "templates";
      for (const t of targets) {
        const ok = t.startsWith(`${own}/`) || KIT.some((k) => t === k || t.startsWith(`${k}/`));
        // plugins/index.ts is the list of built-ins: it names each plugin folder's face and nothing deeper.
        const list = (file === "plugins/index.ts" && /^plugins\/[^/]+\/index\.ts$/.test(t)) || (file === "templates/index.ts" && /^templates\/[^/]+\.ts$/.test(t));
        if (!ok && !list) outside.push(`${file} -> ${t}`);
      }
    }
    expect(outside).toEqual([]);
  });

  test("no source file over 400 lines", () => {
    const big = [...graph.keys()]
      .map((f) => ({ f, lines: readFileSync(join(ROOT, f), "utf8").split("\n").length }))
      .filter((x) => x.lines > 400)
      .map((x) => `${x.f}: ${x.lines}`);
    expect(big).toEqual([]);
  });

  test("no function over 100 lines", async () => {
    expect(await longFunctions(100)).toEqual([]);
  }, 60_000);

  // The same two rules hold for the rest of the tree a reader opens: the Studio, the scripts, the benchmarks, the
  // examples and the tests (generated declaration files aside: studio/src/api-types.d.ts, packages/plugin-kit).
  test("no file of the repository over 400 lines", () => {
    const big = treeFiles(["src", "plugins", "templates", "studio", "scripts", "bench", "examples", "test"])
      .map((f) => ({ f, lines: readFileSync(join(ROOT, f), "utf8").split("\n").length }))
      .filter((x) => x.lines > 400)
      .map((x) => `${x.f}: ${x.lines}`);
    expect(big).toEqual([]);
  });

  test("no function over 100 lines in the Studio, the scripts, the benchmarks or the examples", async () => {
    const browser = treeFiles(["studio/src"]);
    const node = treeFiles(["scripts", "bench", "examples"]).concat("studio/build.ts");
    expect([...(await longFunctions(100, "studio/tsconfig.json", browser)), ...(await longFunctions(100, "tsconfig.json", node))]).toEqual([]);
  }, 60_000);
});
