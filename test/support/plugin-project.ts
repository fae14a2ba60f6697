// A plugin author's project as the recipe in docs/plugins.md ("Plugins from npm") leaves it, made from
// examples/plugins/payment-banktransfer: its package.json, tsconfig.json and sources, and node_modules as `npm install`
// fills it: the kit's tarball (written by `vitrin plugins kit`) unpacked into node_modules/@vitrin/plugin-kit, the
// other packages linked from vitrin's own node_modules, since the tests run offline.
import { cpSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../helpers";

const ROOT = join(import.meta.dir, "..", "..");
export const EXAMPLE = join(ROOT, "examples", "plugins", "payment-banktransfer");
/** What `npm install` adds to node_modules besides the kit: the example's packages and the kit's own (TypeBox). */
const FROM_NPM = ["nanoid", "bun-types", "@sinclair/typebox", "undici-types", "@types/node"];

/** Copies the example into a new folder (returned) and installs it, the kit from `kitTarball`. */
export async function pluginProject(kitTarball: string): Promise<string> {
  const dir = join(tempDir("vitrin-plugin-author-"), "my-plugin");
  for (const name of ["package.json", "tsconfig.json", "src"]) cpSync(join(EXAMPLE, name), join(dir, name), { recursive: true });
  const kit = join(dir, "node_modules", "@vitrin", "plugin-kit");
  for (const [path, file] of await new Bun.Archive(await Bun.file(kitTarball).bytes()).files()) {
    if (!path.startsWith("package/")) throw new Error(`${kitTarball}: ${path} is outside package/, where npm looks`);
    await Bun.write(join(kit, path.slice("package/".length)), file);
  }
  for (const name of FROM_NPM) {
    const installed = join(ROOT, "node_modules", name);
    if (!(await Bun.file(join(installed, "package.json")).exists())) continue;
    mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true });
    symlinkSync(installed, join(dir, "node_modules", name));
  }
  return dir;
}

/** tsc over the project, as `npm run typecheck` runs it (TypeScript 7, the version vitrin uses): exit code and output. */
export function typecheck(dir: string): { code: number; output: string } {
  const tsc = Bun.spawnSync([process.execPath, join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", dir], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  return { code: tsc.exitCode ?? 1, output: `${tsc.stdout}${tsc.stderr}` };
}
