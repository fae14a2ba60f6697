// The command line's plugin side: `vitrin plugins list` (every plugin this instance would load, built in or from
// VITRIN_PLUGIN_DIRS, which one each slot uses, and the settings each reads), `vitrin plugins kit` (kit-package.ts),
// and running a command a plugin adds.
import type { Config } from "../config";
import { createLogger, stderrSink } from "../kernel";
import { wrongWords } from "./commands";
import { loadPluginFolders } from "./load";
export { pluginsCommand } from "./kit-package";
import { SLOT_SETTINGS, type PluginRegistry } from "./registry";
import { readPluginSettings, type PluginSetting } from "./settings";

type Out = { json: boolean; print(human: string, data: unknown): void };

/**
 * Loads the folder plugins (once) and checks every setting against them, as `serve` does at start: a misspelt
 * VITRIN_PLUGIN_<NAME>_* is refused before a plugin's own command runs too.
 */
async function withFolders(registry: PluginRegistry, config: Config): Promise<void> {
  if (config.pluginDirs.length && !registry.all().some((d) => registry.fileOf(d))) await loadPluginFolders(config.pluginDirs, registry);
  registry.settings(config);
}

/** `vitrin plugins list [--json]`: the configuration table's plugin rows, folder plugins included. */
export async function listPlugins(registry: PluginRegistry, config: Config, out: Out): Promise<number> {
  await withFolders(registry, config);
  // A slot whose named plugin is not there (a folder not loaded, a typo) is said as `serve` would say it, not listed
  // silently with nothing in use.
  for (const slot of Object.keys(SLOT_SETTINGS) as (keyof typeof SLOT_SETTINGS)[]) registry.configured(slot, config);
  const data = registry.all().map((def) => ({
    id: `${def.slot}-${def.name}`,
    slot: def.slot,
    name: def.name,
    in_use: config[SLOT_SETTINGS[def.slot]] === def.name,
    source: registry.fileOf(def) ?? "built-in",
    description: def.description,
    settings: (Object.values(def.settings ?? {}) as PluginSetting<unknown>[]).map((s) => ({ env: s.env, default: s.default, description: s.doc })),
    commands: (def.commands ?? []).map((c) => `vitrin ${c.words.join(" ")} ${c.usage}`.trim()),
  }));
  const human = data.map((p) => {
    const head = `${p.id}${p.in_use ? " (in use)" : ""}, ${p.source}: ${p.description}`;
    return [head, ...p.settings.map((s) => `  ${s.env} (default ${s.default}): ${s.description}`), ...p.commands.map((c) => `  ${c}`)].join("\n");
  });
  out.print(human.join("\n\n"), { data });
  return 0;
}

/** A command a plugin adds, run with that plugin's settings; plugins from VITRIN_PLUGIN_DIRS are loaded to find it. */
export async function runPluginCommand(registry: PluginRegistry, positionals: string[], config: Config, out: Out): Promise<number> {
  if (!registry.command(positionals)) await withFolders(registry, config);
  const found = registry.command(positionals);
  if (!found) {
    // From the registry, not main.ts's usage: that was written before the folder plugins' commands were loaded.
    const lines = registry.commands().map(({ command }) => `  vitrin ${command.words.join(" ")} ${command.usage}`);
    return wrongWords(lines.join("\n"), positionals[0]!, positionals[1]);
  }
  const { plugin, command } = found;
  const settings = readPluginSettings(plugin.settings, config);
  const logger = createLogger("warn", stderrSink).child({ plugin: `${plugin.slot}-${plugin.name}` });
  return command.run({ config, settings, logger, args: positionals.slice(command.words.length), json: out.json, print: out.print });
}
