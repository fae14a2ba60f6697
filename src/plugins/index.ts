// The plugin kit's face: the slot contracts (contracts.ts), the registry (registry.ts), declared settings and CLI
// commands, storage keys and download names, and the setting parsers plugins share with the core. Plugins import the
// kit, never the core's insides; sharp (./sharp.ts) and the native helpers (./native.ts) are their own modules, loaded only by who needs them.
export * from "./contracts";
export { PluginRegistry, type Plugins, type StartContext } from "./registry";
export { folderSettingPrefix, readPluginSettings, type PluginSetting, type PluginSettings } from "./settings";
export { CORE_COMMANDS, printHelp, protectNegatives, unmarkNegatives, type CommandContext, type CoreCommand, type PluginCommand } from "./commands";
export { contentTypeOf, isPartialFile, isSafeKey, localFilesDir, partialFileName } from "./storage-keys";
export { attachment, downloadFileName, servedUrl, serveStored, UNSAFE_IN_NAMES } from "./downloads";
export { boolean, ConfigError, httpUrl, integer, oneOf, optionalText, optionalUrl, type Config } from "../config";
export type { Logger } from "../kernel";
export { isEmbeddedPath, userTmpDir, userTmpPath } from "../kernel";
