// Reads the core settings from the environment once at start, and checks that every VITRIN_* variable is one someone
// reads: the core, a plugin's declared setting, or a folder plugin's own VITRIN_PLUGIN_<NAME>_<SETTING>.
import { ConfigError, readSetting, settingRow, type Env, type Setting } from "./parse";
import { coreSettings, type CoreConfig } from "./settings";

export type Config = CoreConfig & {
  /** Every VITRIN_* variable the configuration was read from: the plugins' declared settings are read from these. */
  environment: Env;
};

/** Builds the core configuration from an environment (process.env by default); throws ConfigError naming the bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const config: Partial<CoreConfig> = {};
  for (const setting of coreSettings) (config as Record<string, unknown>)[setting.key] = readSetting(setting, { env, config });
  const environment: Env = {};
  for (const [name, value] of Object.entries(env)) if (name.startsWith("VITRIN_") && value !== undefined) environment[name] = value;
  return { ...(config as CoreConfig), environment };
}

/** The variables of the core's own list. */
export const settingNames: string[] = coreSettings.map((s) => s.env);

/**
 * Refuses a VITRIN_* variable nobody reads (a misspelt one would otherwise be ignored without a word). `declared` are
 * the plugins' setting names; names of the form VITRIN_PLUGIN_<NAME>_<SETTING> belong to folder plugins and pass.
 */
export function checkSettingNames(config: Pick<Config, "environment">, declared: Iterable<string>): void {
  const known = new Set([...settingNames, ...declared]);
  const unknown = Object.keys(config.environment).filter((k) => !known.has(k) && !/^VITRIN_PLUGIN_[A-Z0-9]+_[A-Z0-9_]+$/.test(k));
  if (unknown.length > 0) throw new ConfigError(`unknown setting ${unknown.join(", ")}; see the configuration table`);
}

/** The configuration table in Markdown: the core's settings, then each group of plugin settings in the order given. */
export function configTable(plugins: { settings: Pick<Setting, "env" | "default" | "doc">[] }[] = []): string {
  const rows = [...coreSettings, ...plugins.flatMap((p) => p.settings)].map(settingRow);
  return ["| Variable | Default | Meaning |", "|---|---|---|", ...rows].join("\n");
}
