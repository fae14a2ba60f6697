// Imports plugins from folders at start (VITRIN_PLUGIN_DIRS; by default plugins/ next to the compiled binary) and
// adds them to the registry, so self-hosters drop a plugin in beside the executable without rebuilding it.
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Logger } from "../kernel";
import { pluginHost } from "./host";
import type { PluginDefinition, PluginRegistry, Slot } from "./index";

const SLOTS: readonly Slot[] = ["storage", "background-removal", "renderer", "payment"];
const MODULE_FILE = /^[^._][^/]*\.(ts|js|mjs)$/;
const INDEX_FILES = ["index.ts", "index.js", "index.mjs"];

/** The modules a plugin folder holds: each subfolder's index file, and each module file at the top. */
async function pluginModules(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    throw new Error(`cannot read the plugins folder ${dir}: ${(e as Error).message}`);
  }
  const out: string[] = [];
  for (const name of names.sort()) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    const info = await stat(path);
    if (info.isDirectory()) {
      for (const index of INDEX_FILES) {
        if ((await stat(join(path, index)).catch(() => null))?.isFile()) {
          out.push(join(path, index));
          break;
        }
      }
    } else if (MODULE_FILE.test(name) && !name.endsWith(".d.ts") && !/\.(test|spec)\./.test(name)) {
      out.push(path);
    }
  }
  return out;
}

function checkDefinition(def: unknown, file: string): PluginDefinition {
  const d = def as Partial<PluginDefinition> | null;
  const problem =
    !d || typeof d !== "object"
      ? "it exports no plugin definition"
      : !SLOTS.includes(d.slot as Slot)
        ? `its slot "${String(d.slot)}" is not one of ${SLOTS.join(", ")}`
        : typeof d.name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(d.name)
          ? "its name must be lowercase letters, digits and dashes"
          : typeof d.create !== "function"
            ? "it has no create(ctx) function"
            : null;
  if (problem) throw new Error(`plugin ${file}: ${problem}`);
  return { description: "", ...d } as PluginDefinition;
}

/**
 * Imports every plugin module in `dirs` and adds its definitions to `registry`. A module default-exports a plugin
 * definition, a list of them, or a function of the host API returning either (possibly async).
 */
export async function loadPluginFolders(dirs: string[], registry: PluginRegistry, logger?: Logger): Promise<string[]> {
  const added: string[] = [];
  for (const dir of dirs) {
    for (const file of await pluginModules(resolve(dir))) {
      let mod: { default?: unknown };
      try {
        mod = await import(pathToFileURL(file).href);
      } catch (e) {
        throw new Error(`plugin ${file} failed to load: ${(e as Error).message}`);
      }
      let exported = mod.default;
      if (typeof exported === "function") exported = await (exported as (host: typeof pluginHost) => unknown)(pluginHost);
      for (const def of Array.isArray(exported) ? exported : [exported]) {
        const checked = checkDefinition(def, file);
        try {
          registry.add(checked);
        } catch (e) {
          throw new Error(`plugin ${file}: ${(e as Error).message}`);
        }
        added.push(`${checked.slot}-${checked.name}`);
        logger?.info("plugin loaded", { plugin: `${checked.slot}-${checked.name}`, file });
      }
    }
  }
  return added;
}
