// Imports plugins from folders at start (VITRIN_PLUGIN_DIRS; by default plugins/ next to the compiled binary) and
// adds them to the registry, so self-hosters drop a plugin in beside the executable without rebuilding it.
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../config";
import { describeImportError, type Logger } from "../kernel";
import { pluginHost } from "./host";
import type { PluginDefinition, PluginRegistry, Slot } from "./index";
import { folderSettingPrefix, type PluginSetting } from "./settings";

const SLOTS: readonly Slot[] = ["storage", "background-removal", "renderer", "payment"];
const MODULE_FILE = /^[^._][^/]*\.(ts|js|mjs)$/;
const INDEX_FILES = ["index.ts", "index.js", "index.mjs"];

/**
 * The modules a plugin folder holds: each subfolder's index file, and each module file at the top. A subfolder with
 * no index file (an unbuilt project, say) is noted in `skipped`.
 */
async function pluginModules(dir: string, skipped: string[]): Promise<string[]> {
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
      const before = out.length;
      for (const index of INDEX_FILES) {
        if ((await stat(join(path, index)).catch(() => null))?.isFile()) {
          out.push(join(path, index));
          break;
        }
      }
      if (out.length === before) skipped.push(path);
    } else if (MODULE_FILE.test(name) && !name.endsWith(".d.ts") && !/\.(test|spec)\./.test(name)) {
      out.push(path);
    }
  }
  return out;
}

/**
 * A folder plugin's settings are named VITRIN_PLUGIN_<NAME>_<SETTING>: commands that never load folder plugins can
 * then still tell them from a misspelt core setting.
 */
function settingsProblem(d: PluginDefinition): string | null {
  const prefix = folderSettingPrefix(d.name);
  for (const [key, s] of Object.entries(d.settings ?? {})) {
    const setting = s as Partial<PluginSetting<unknown>> | null;
    if (!setting || typeof setting.env !== "string" || typeof setting.parse !== "function") return `its setting "${key}" needs an env name and a parse function`;
    if (!setting.env.startsWith(prefix) || setting.env.length === prefix.length) return `its setting ${setting.env} must be named ${prefix}<SETTING>`;
    // Both go into the configuration table an operator reads: a setting without them would be a blank row.
    if (typeof setting.default !== "string") return `its setting ${setting.env} needs a default (the text the configuration table shows, e.g. "(unset)")`;
    if (typeof setting.doc !== "string" || setting.doc.trim() === "") return `its setting ${setting.env} needs a doc (one line on what it does)`;
  }
  return null;
}

/** A command needs words of its own: with none it would take every command line the core does not know. */
function commandsProblem(d: PluginDefinition): string | null {
  for (const command of d.commands ?? []) {
    const words = (command as { words?: unknown }).words;
    if (!Array.isArray(words) || words.length === 0 || !words.every((w) => typeof w === "string" && w.length > 0)) {
      return "each of its commands needs at least one word (e.g. words: [\"mystore\", \"sync\"])";
    }
  }
  return null;
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
            : settingsProblem(d as PluginDefinition) ?? commandsProblem(d as PluginDefinition);
  // Refusals are configuration errors: one line naming the file at start, exit 2, as a bad setting is.
  if (problem) throw new ConfigError(`plugin ${file}: ${problem}`);
  return { description: "", ...d } as PluginDefinition;
}

/**
 * Imports every plugin module in `dirs` and adds its definitions to `registry`. A module default-exports a plugin
 * definition, a list of them, or a function of the host API returning either (possibly async).
 */
export async function loadPluginFolders(dirs: string[], registry: PluginRegistry, logger?: Logger): Promise<string[]> {
  const added: string[] = [];
  for (const dir of dirs) {
    const skipped: string[] = [];
    const files = await pluginModules(resolve(dir), skipped);
    for (const folder of skipped) {
      registry.skipped(folder);
      logger?.info("plugin folder skipped: it has no index.ts, index.js or index.mjs", { folder });
    }
    for (const file of files) {
      let mod: { default?: unknown };
      try {
        mod = await import(pathToFileURL(file).href);
      } catch (e) {
        throw new ConfigError(`plugin ${file} failed to load: ${describeImportError(e)}`);
      }
      let exported = mod.default;
      if (typeof exported === "function") {
        try {
          exported = await (exported as (host: typeof pluginHost) => unknown)(pluginHost);
        } catch (e) {
          throw new ConfigError(`plugin ${file}: its default-exported function threw: ${(e as Error).message}`);
        }
      }
      for (const def of Array.isArray(exported) ? exported : [exported]) {
        const checked = checkDefinition(def, file);
        try {
          registry.add(checked, file);
        } catch (e) {
          throw new ConfigError(`plugin ${file}: ${(e as Error).message}`);
        }
        added.push(`${checked.slot}-${checked.name}`);
        logger?.info("plugin loaded", { plugin: `${checked.slot}-${checked.name}`, file });
      }
    }
  }
  return added;
}
