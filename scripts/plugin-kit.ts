// Generates packages/plugin-kit (@vitrin/plugin-kit): the plugin kit's declarations, emitted by tsc from
// src/plugins/kit-types.ts and src/plugins/renderer-kit.ts, with package.json and the entry files beside them; the
// README there is kept by hand. Usage: bun run scripts/plugin-kit.ts [--out DIR] (default: packages/plugin-kit).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const ROOT = resolve(import.meta.dir, "..");
export const KIT_DIR = join(ROOT, "packages", "plugin-kit");
/** Where tsc writes the declarations inside the package (mirroring the repository's tree below it). */
const TYPES = "types";

function versionOf(packageJson: string): string {
  return JSON.parse(readFileSync(packageJson, "utf8")).version as string;
}

/** The package.json of the kit: types only, at vitrin's version, with TypeBox (which its declarations name). */
function packageJson(): string {
  const typebox = versionOf(join(ROOT, "node_modules", "@sinclair", "typebox", "package.json"));
  const pkg = {
    name: "@vitrin/plugin-kit",
    version: versionOf(join(ROOT, "package.json")),
    description: "Types of the vitrin plugin kit, for plugins loaded from a folder (VITRIN_PLUGIN_DIRS). Types only: at run time a plugin gets everything from the host object vitrin passes it.",
    type: "module",
    types: "./index.d.ts",
    exports: { ".": { types: "./index.d.ts" }, "./renderer": { types: "./renderer.d.ts" }, "./templates": { types: "./templates.d.ts" } },
    dependencies: { "@sinclair/typebox": typebox },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

const ENTRIES: Record<string, string> = {
  "index.d.ts": `// @vitrin/plugin-kit: the slot contracts, plugin definitions, settings, commands and the host API, as types.\nexport type * from "./${TYPES}/src/plugins/kit-types";\n`,
  "renderer.d.ts": `// @vitrin/plugin-kit/renderer: what a renderer plugin uses of the templates (their definitions and scenes), as types.\nexport type * from "./${TYPES}/src/plugins/renderer-kit";\n`,
  "templates.d.ts": `// @vitrin/plugin-kit/templates: the template API (src/templates/api.ts) for templates in a folder (VITRIN_TEMPLATE_DIRS), as types.\nexport type * from "./${TYPES}/src/templates/api";\n`,
};

/** Runs tsc's declaration emit over the kit's sources into `outDir/types`; throws with tsc's output on an error. */
function emitDeclarations(outDir: string): void {
  const work = mkdtempSync(join(tmpdir(), "vitrin-plugin-kit-"));
  try {
    const tsconfig = {
      compilerOptions: {
        target: "ESNext",
        module: "ESNext",
        moduleResolution: "bundler",
        lib: ["ESNext"],
        types: ["bun-types"],
        typeRoots: [join(ROOT, "node_modules")],
        strict: true,
        skipLibCheck: true,
        esModuleInterop: true,
        resolveJsonModule: true,
        allowImportingTsExtensions: true,
        declaration: true,
        emitDeclarationOnly: true,
        rootDir: ROOT,
        outDir: join(outDir, TYPES),
      },
      files: [join(ROOT, "src", "plugins", "kit-types.ts"), join(ROOT, "src", "plugins", "renderer-kit.ts")],
    };
    writeFileSync(join(work, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    const tsc = Bun.spawnSync([process.execPath, join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(work, "tsconfig.json")], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    if (tsc.exitCode !== 0) throw new Error(`tsc failed to emit the plugin kit's declarations:\n${tsc.stdout}${tsc.stderr}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Writes every generated file of the kit into `outDir` (its old declarations removed first; README.md is left alone). */
export function generatePluginKit(outDir: string = KIT_DIR): void {
  rmSync(join(outDir, TYPES), { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  emitDeclarations(outDir);
  writeFileSync(join(outDir, "package.json"), packageJson());
  for (const [name, text] of Object.entries(ENTRIES)) writeFileSync(join(outDir, name), text);
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Bun.argv.slice(2), options: { out: { type: "string", default: KIT_DIR } } });
  generatePluginKit(resolve(values.out!));
  console.log(`wrote the plugin kit's package to ${values.out}`);
}
