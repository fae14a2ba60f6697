export type * from "./contracts";
export type { PluginHost } from "./host";
export type { CommandContext, PluginCommand } from "./commands";
export type { PluginSetting, PluginSettings } from "./settings";
export type { Config } from "../config";
export type { Logger } from "../kernel";
export type { TypeBuilder } from "../templates";
