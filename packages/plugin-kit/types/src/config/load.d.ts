import { type Env, type Setting } from "./parse";
import { type CoreConfig } from "./settings";
export type Config = CoreConfig & {
    /** Every VITRIN_* variable the configuration was read from: the plugins' declared settings are read from these. */
    environment: Env;
};
/** Builds the core configuration from an environment (process.env by default); throws ConfigError naming the bad variable. */
export declare function loadConfig(env?: Env): Config;
/** The variables of the core's own list. */
export declare const settingNames: string[];
/**
 * Refuses a VITRIN_* variable nobody reads (a misspelt one would otherwise be ignored without a word). `declared` are
 * the plugins' setting names; names of the form VITRIN_PLUGIN_<NAME>_<SETTING> belong to folder plugins and pass.
 */
export declare function checkSettingNames(config: Pick<Config, "environment">, declared: Iterable<string>): void;
/** The configuration table in Markdown: the core's settings, then each group of plugin settings in the order given. */
export declare function configTable(plugins?: {
    settings: Pick<Setting, "env" | "default" | "doc">[];
}[]): string;
