// Settings a plugin declares in its own folder (variable, default, meaning, parser): read from the service's
// environment at start, refused with the same clear errors as the core's, and listed in the configuration table.
import { readSetting, type Config, type Setting } from "../config";

/** One declared setting; its parser also sees the core's settings (`input.config`), e.g. the data dir. */
export type PluginSetting<V> = Setting<V, Config>;

/** A plugin's declared settings, by the name its code reads them under. */
export type PluginSettings<T> = { [K in keyof T]: PluginSetting<T[K]> };

/** Reads a plugin's declared settings from the configuration's environment; ConfigError names a bad variable. */
export function readPluginSettings<T>(declared: PluginSettings<T> | undefined, config: Config): T {
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(declared ?? {}) as [string, PluginSetting<unknown>][]) {
    values[key] = readSetting(setting, { env: config.environment, config });
  }
  return values as T;
}

/** The variable names a folder plugin's settings must start with: VITRIN_PLUGIN_<NAME>_ (dashes become underscores). */
export function folderSettingPrefix(name: string): string {
  return `VITRIN_PLUGIN_${name.toUpperCase().replaceAll("-", "_")}_`;
}
