import { type Config } from "../config";
import { type PluginCommand } from "./commands";
import { type Lifecycle, type PluginContext, type PluginDefinition, type ReadyReport, type Slot, type SlotMap } from "./contracts";
import { type PluginSetting } from "./settings";
type Started = {
    slot: Slot;
    name: string;
    instance: Lifecycle;
};
/**
 * The core setting that names each slot's plugin (its key in Config, which is also the slot's key in Plugins), in the
 * order start() boots the slots: `vitrin plugins list` reads from it which plugin each slot uses.
 */
export declare const SLOT_SETTINGS: {
    readonly storage: "storage";
    readonly "background-removal": "backgroundRemoval";
    readonly renderer: "renderer";
    readonly payment: "payment";
};
export type Plugins = {
    storage: SlotMap["storage"];
    backgroundRemoval: SlotMap["background-removal"];
    renderer: SlotMap["renderer"];
    payment: SlotMap["payment"];
    /** Every plugin started, in init order. */
    all: Started[];
    readiness(): Promise<Record<string, ReadyReport>>;
    close(): Promise<void>;
};
/** What start() needs: the plugin context less each plugin's own settings, which the registry reads. */
export type StartContext = Omit<PluginContext, "settings">;
export declare class PluginRegistry {
    private defs;
    /** The file each plugin loaded from a folder came from (built-in ones have none). */
    private files;
    /** Subfolders of the plugin folders that held no plugin to load, named when a slot's plugin is not found. */
    private passedOver;
    add(def: PluginDefinition, file?: string): this;
    /** The file a plugin was loaded from, or null for a built-in one. */
    fileOf(def: PluginDefinition): string | null;
    /** Every registered plugin, in registration order (the built-in ones, then those loaded from folders). */
    all(): PluginDefinition[];
    /** Notes a subfolder of a plugin folder that held no index file, so nothing was loaded from it. */
    skipped(folder: string): void;
    names(slot: Slot): string[];
    find<S extends Slot>(slot: S, name: string): PluginDefinition<S>;
    /** Each plugin with declared settings, in registration order: the configuration table lists them after the core's. */
    declaredSettings(): {
        plugin: string;
        settings: PluginSetting<unknown>[];
    }[];
    /**
     * Reads every registered plugin's settings, chosen for a slot or not (a bad value is refused at start, not when
     * someone switches plugins later), and refuses VITRIN_* variables that neither the core nor a plugin reads.
     */
    settings(config: Config): Map<string, unknown>;
    /** Every plugin command, with the plugin that adds it. */
    commands(): {
        plugin: PluginDefinition;
        command: PluginCommand;
    }[];
    /** The plugin command whose words begin `positionals`, if any. */
    command(positionals: string[]): {
        plugin: PluginDefinition;
        command: PluginCommand;
    } | null;
    /**
     * The plugin the settings name for `slot`; a name nobody registered (a folder plugin not loaded, a typo) is a
     * configuration error naming the setting, one line at start (and in `plugins list`).
     */
    configured<S extends Slot>(slot: S, config: Config): PluginDefinition<S>;
    /** Creates and initialises the configured plugin of each slot; on a failure, closes what already started. */
    start(ctx: StartContext): Promise<Plugins>;
}
export {};
