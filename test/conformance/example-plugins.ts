// Folder plugins made ready for the conformance kits the way vitrin does at start: loaded by src/plugins/load.ts into
// a registry, then created with a plugin context and initialised. Our runs use it for examples/plugins/; a plugin
// author's test uses folderPlugin() for their own folder. Not part of the kits themselves.
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { memoryLogger } from "../../src/kernel";
import { PluginRegistry, readPluginSettings, type Slot, type SlotMap } from "../../src/plugins";
import { loadPluginFolders } from "../../src/plugins/load";
import { loadTemplates } from "../../src/templates";
import { BUILTIN_TEMPLATES } from "../../templates";

export const EXAMPLES_DIR = join(import.meta.dir, "..", "..", "examples", "plugins");
/** The CDN base of the vitrin folder and example plugins are created in (its public URL is http://vitrin.test). */
export const FOLDER_CDN_URL = "http://cdn.vitrin.test/files";

let registry: Promise<PluginRegistry> | null = null;
let templates: ReturnType<typeof loadTemplates> | null = null;

/** Creates (and inits) the example plugin `name` of `slot`, with its own data dir and the given plugin settings. */
export async function examplePlugin<S extends Slot>(slot: S, name: string, env: Record<string, string> = {}): Promise<SlotMap[S]> {
  registry ??= (async () => {
    const r = new PluginRegistry();
    await loadPluginFolders([EXAMPLES_DIR], r);
    return r;
  })();
  return createPlugin(await registry, slot, name, env);
}

/**
 * Creates (and inits) the plugin `name` of `slot` from your own plugin folder `dir`, as `VITRIN_PLUGIN_DIRS=dir` would
 * at start, with its own data dir and the given settings: `storageConformance("mine", () => folderPlugin(dir,
 * "storage", "mine"))`.
 */
export async function folderPlugin<S extends Slot>(dir: string, slot: S, name: string, env: Record<string, string> = {}): Promise<SlotMap[S]> {
  const r = new PluginRegistry();
  await loadPluginFolders([dir], r);
  return createPlugin(r, slot, name, env);
}

/**
 * The same for an example built from npm packages (`entry` below examples/plugins/): bundled into one file first, as
 * its recipe does (docs/plugins.md, "Plugins from npm"), and that file loaded from a folder.
 */
export async function bundledExamplePlugin<S extends Slot>(slot: S, name: string, entry: string, env: Record<string, string> = {}): Promise<SlotMap[S]> {
  const outdir = mkdtempSync(join(tmpdir(), `vitrin-example-${name}-bundle-`));
  const built = await Bun.build({ entrypoints: [join(EXAMPLES_DIR, entry)], target: "bun", format: "esm", outdir });
  if (!built.success) throw new Error(`bundling ${entry} failed: ${built.logs.join("\n")}`);
  const r = new PluginRegistry();
  await loadPluginFolders([outdir], r);
  rmSync(outdir, { recursive: true, force: true }); // imported: the file is no longer needed
  return createPlugin(r, slot, name, env);
}

/**
 * The data dirs made for plugins (a 6 MB case's file among them), removed once the test file that first loaded this
 * module is done: bun test runs no exit handler, and a hook registered here belongs to that file alone, which for a
 * plugin author's one test file is all of them.
 */
const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function createPlugin<S extends Slot>(registry: PluginRegistry, slot: S, name: string, env: Record<string, string>): Promise<SlotMap[S]> {
  const def = registry.find(slot, name);
  const dataDir = mkdtempSync(join(tmpdir(), `vitrin-plugin-${name}-`));
  dataDirs.push(dataDir);
  // Links to served files go under the CDN's base, set apart from the public URL's so that a storage building its links
  // from publicUrl instead of cdnUrl fails a kit's expectUrl (an operator's VITRIN_CDN_URL would break it).
  const config = loadConfig({ VITRIN_DATA_DIR: dataDir, VITRIN_PUBLIC_URL: "http://vitrin.test", VITRIN_CDN_URL: FOLDER_CDN_URL, ...env });
  const settings = readPluginSettings(def.settings, config);
  const plugin = await def.create({ config, settings, env, logger: memoryLogger(), templates: await (templates ??= loadTemplates({ builtin: BUILTIN_TEMPLATES })) });
  await plugin.init?.();
  return plugin;
}
