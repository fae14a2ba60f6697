import { type Config, type Setting } from "../config";
/** One declared setting; its parser also sees the core's settings (`input.config`), e.g. the data dir. */
export type PluginSetting<V> = Setting<V, Config>;
/** A plugin's declared settings, by the name its code reads them under. */
export type PluginSettings<T> = {
    [K in keyof T]: PluginSetting<T[K]>;
};
/** Reads a plugin's declared settings from the configuration's environment; ConfigError names a bad variable. */
export declare function readPluginSettings<T>(declared: PluginSettings<T> | undefined, config: Config): T;
/** The variable names a folder plugin's settings must start with: VITRIN_PLUGIN_<NAME>_ (dashes become underscores). */
export declare function folderSettingPrefix(name: string): string;
