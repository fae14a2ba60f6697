// The files of packages/plugin-kit, read by a Bun macro: `bun build` runs it and inlines the result, so the compiled
// binary carries the package and `vitrin plugins kit DIR` can write it where no clone of vitrin exists.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export type KitFile = { path: string; text: string };

/** Every file of the package with its path inside it, in path order (import with `{ type: "macro" }`). */
export function kitFiles(): KitFile[] {
  const root = join(import.meta.dir, "..", "..", "packages", "plugin-kit");
  const out: KitFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push({ path: relative(root, path), text: readFileSync(path, "utf8") });
    }
  };
  walk(root);
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}
