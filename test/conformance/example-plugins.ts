// Our runs of the conformance kits reach the example folder plugins (examples/plugins/) the way vitrin does at start:
// loaded by src/plugins/load.ts into a registry, then created with a plugin context. Not part of the kits themselves.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { memoryLogger } from "../../src/kernel";
import { PluginRegistry, readPluginSettings, type Slot, type SlotMap } from "../../src/plugins";
import { loadPluginFolders } from "../../src/plugins/load";
import { loadTemplates } from "../../src/templates";
import { BUILTIN_TEMPLATES } from "../../templates";

export const EXAMPLES_DIR = join(import.meta.dir, "..", "..", "examples", "plugins");

let registry: Promise<PluginRegistry> | null = null;
let templates: ReturnType<typeof loadTemplates> | null = null;

/** Creates (and inits) the example plugin `name` of `slot`, with its own data dir and the given plugin settings. */
export async function examplePlugin<S extends Slot>(slot: S, name: string, env: Record<string, string> = {}): Promise<SlotMap[S]> {
  registry ??= (async () => {
    const r = new PluginRegistry();
    await loadPluginFolders([EXAMPLES_DIR], r);
    return r;
  })();
  const def = (await registry).find(slot, name);
  const config = loadConfig({ VITRIN_DATA_DIR: mkdtempSync(join(tmpdir(), `vitrin-example-${name}-`)), VITRIN_PUBLIC_URL: "http://vitrin.test", ...env });
  const settings = readPluginSettings(def.settings, config);
  const plugin = await def.create({ config, settings, env, logger: memoryLogger(), templates: await (templates ??= loadTemplates({ builtin: BUILTIN_TEMPLATES })) });
  await plugin.init?.();
  return plugin;
}
