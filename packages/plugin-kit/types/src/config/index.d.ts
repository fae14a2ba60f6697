export { loadConfig, checkSettingNames, configTable, settingNames, type Config } from "./load";
export { coreSettings, isCompiled, type CoreConfig, type CoreSetting } from "./settings";
export { boolean, ConfigError, httpUrl, integer, oneOf, optionalText, optionalUrl, pathList, pluginName, readSetting, settingRow, shownValue, type Env, type Setting, type SettingInput, } from "./parse";
export { defaultNativeDir } from "./paths";
