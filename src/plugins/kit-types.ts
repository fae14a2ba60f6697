// The plugin kit as a folder plugin sees it, types only: the source of the @vitrin/plugin-kit package's declarations
// (scripts/plugin-kit.ts). A folder plugin gets every value from `host` at run time, so nothing here is a value.
export type * from "./contracts";
export type { PluginHost } from "./host";
export type { CommandContext, PluginCommand } from "./commands";
export type { PluginSetting, PluginSettings } from "./settings";
export type { Config } from "../config";
export type { Logger } from "../kernel";
export type { TypeBuilder } from "../templates";
