// `vitrin plugins kit DIR`: writes the plugin kit's package (@vitrin/plugin-kit, types only) as an npm tarball, from
// the copy the binary carries, so a plugin author runs `npm install ./DIR/vitrin-plugin-kit-<version>.tgz` and needs
// no clone of vitrin. A tarball, not a folder: npm links a folder, and a linked package's own dependency (TypeBox)
// is then found by nobody; a tarball is installed like any package from the registry.
import { mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { wrongWords } from "./commands";
import { kitFiles } from "./kit-files" with { type: "macro" };

const FILES = kitFiles();

export type WrittenKit = { file: string; name: string; version: string; files: string[] };

/** The kit package's name and version, as its package.json says. */
export function kitPackage(): { name: string; version: string } {
  const pkg = FILES.find((f) => f.path === "package.json");
  if (!pkg) throw new Error("this vitrin was built without the plugin kit's package");
  const { name, version } = JSON.parse(pkg.text) as { name: string; version: string };
  return { name, version };
}

/** Writes the tarball into `dir` (made if missing), laid out as `npm pack` does; an existing one is kept unless `force`. */
export async function writePluginKit(dir: string, force = false): Promise<WrittenKit> {
  const { name, version } = kitPackage();
  const file = join(resolve(dir), `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`);
  if (!force && (await stat(file).catch(() => null))) throw new Error(`${file} exists; pass --force to write it again`);
  await mkdir(resolve(dir), { recursive: true });
  await Bun.Archive.write(file, Object.fromEntries(FILES.map((f) => [`package/${f.path}`, f.text])), { compress: "gzip" });
  return { file, name, version, files: FILES.map((f) => f.path) };
}

/** `vitrin plugins kit DIR [--force]`: 0 with the tarball written, 1 when it cannot be, 2 for another command line. */
export async function pluginsCommand(args: (string | undefined)[], force: boolean, print: (human: string, data: unknown) => void, usage: string): Promise<number> {
  const [sub, dir, ...extra] = args;
  if (sub !== "kit" || !dir || extra.length > 0) return wrongWords(usage, "plugins", sub);
  try {
    const kit = await writePluginKit(dir, force);
    print(`wrote ${kit.name}@${kit.version} to ${kit.file}; in your plugin's folder: npm install --save-dev ${kit.file}`, kit);
    return 0;
  } catch (e) {
    console.error(`could not write the plugin kit: ${(e as Error).message}`);
    return 1;
  }
}
