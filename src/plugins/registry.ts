// The registry of plugins: picks one implementation per slot from config, reads every plugin's declared settings at
// start (refusing bad values and VITRIN_* names nobody reads), runs their lifecycle (init in order, close in reverse)
// and finds their CLI commands.
import { checkSettingNames, ConfigError, coreSettings, settingNames, type Config } from "../config";
import type { Logger } from "../kernel";
import { CORE_COMMANDS, type PluginCommand } from "./commands";
import { REQUIRED_METHODS, type Lifecycle, type PluginContext, type PluginDefinition, type ReadyReport, type Slot, type SlotMap } from "./contracts";
import { folderSettingPrefix, readPluginSettings, type PluginSetting } from "./settings";

type Started = { slot: Slot; name: string; instance: Lifecycle };

/** The key of Plugins whose type is slot S's plugin: a slot mapped to another slot's key does not compile. */
type PluginsKeyOf<S extends Slot> = { [K in keyof Plugins]: Plugins[K] extends SlotMap[S] ? K : never }[keyof Plugins];

/**
 * The core setting that names each slot's plugin (its key in Config, which is also the slot's key in Plugins), in the
 * order start() boots the slots: `vitrin plugins list` reads from it which plugin each slot uses.
 */
export const SLOT_SETTINGS = {
  storage: "storage",
  "background-removal": "backgroundRemoval",
  renderer: "renderer",
  payment: "payment",
} as const satisfies { readonly [S in Slot]: keyof Config & PluginsKeyOf<S> };

type SlotKey = (typeof SLOT_SETTINGS)[Slot];

/** The variable of the core setting `key` (VITRIN_BACKGROUND_REMOVAL for backgroundRemoval), as errors name it. */
const variableOf = (key: SlotKey) => coreSettings.find((s) => s.key === key)?.env ?? key;

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

const idOf = (def: Pick<PluginDefinition, "slot" | "name">) => `${def.slot}-${def.name}`;

export class PluginRegistry {
  private defs = new Map<string, PluginDefinition>();
  /** The file each plugin loaded from a folder came from (built-in ones have none). */
  private files = new Map<PluginDefinition, string>();
  /** Subfolders of the plugin folders that held no plugin to load, named when a slot's plugin is not found. */
  private passedOver: string[] = [];

  add(def: PluginDefinition, file?: string): this {
    const id = `${def.slot}:${def.name}`;
    if (this.defs.has(id)) throw new Error(`plugin ${idOf(def)} is registered twice: another plugin, built in or loaded, has that slot and name`);
    for (const setting of Object.values(def.settings ?? {}) as PluginSetting<unknown>[]) {
      if (settingNames.includes(setting.env)) throw new Error(`plugin ${idOf(def)} declares ${setting.env}, a core setting`);
      const other = [...this.defs.values()].find((d) => Object.values(d.settings ?? {}).some((s) => (s as PluginSetting<unknown>).env === setting.env));
      if (other) throw new Error(`plugin ${idOf(def)} declares ${setting.env}, which plugin ${idOf(other)} declares too`);
    }
    const clash = (def.commands ?? []).find((c) => (CORE_COMMANDS as readonly string[]).includes(c.words[0] ?? ""));
    if (clash) throw new Error(`plugin ${idOf(def)} adds the command "${clash.words.join(" ")}", but "${clash.words[0]}" is one of vitrin's own commands`);
    this.defs.set(id, def);
    if (file) this.files.set(def, file);
    return this;
  }

  /** The file a plugin was loaded from, or null for a built-in one. */
  fileOf(def: PluginDefinition): string | null {
    return this.files.get(def) ?? null;
  }

  /** Every registered plugin, in registration order (the built-in ones, then those loaded from folders). */
  all(): PluginDefinition[] {
    return [...this.defs.values()];
  }

  /** Notes a subfolder of a plugin folder that held no index file, so nothing was loaded from it. */
  skipped(folder: string): void {
    this.passedOver.push(folder);
  }

  names(slot: Slot): string[] {
    return [...this.defs.values()].filter((d) => d.slot === slot).map((d) => d.name);
  }

  find<S extends Slot>(slot: S, name: string): PluginDefinition<S> {
    const def = this.defs.get(`${slot}:${name}`);
    if (!def) {
      const skipped = this.passedOver.length
        ? ` (not loaded, having no index.ts, index.js or index.mjs: ${this.passedOver.join(", ")}; a plugin built from npm packages is its bundled .js file)`
        : "";
      throw new Error(`unknown ${slot} plugin "${name}"; available: ${this.names(slot).join(", ") || "none"}${skipped}`);
    }
    return def as unknown as PluginDefinition<S>;
  }

  /** Each plugin with declared settings, in registration order: the configuration table lists them after the core's. */
  declaredSettings(): { plugin: string; settings: PluginSetting<unknown>[] }[] {
    return [...this.defs.values()]
      .filter((d) => d.settings && Object.keys(d.settings).length > 0)
      .map((d) => ({ plugin: idOf(d), settings: Object.values(d.settings!) as PluginSetting<unknown>[] }));
  }

  /**
   * Reads every registered plugin's settings, chosen for a slot or not (a bad value is refused at start, not when
   * someone switches plugins later), and refuses VITRIN_* variables that neither the core nor a plugin reads.
   */
  settings(config: Config): Map<string, unknown> {
    const values = new Map<string, unknown>();
    for (const def of this.defs.values()) values.set(idOf(def), readPluginSettings(def.settings, config));
    const declared = this.declaredSettings().flatMap((p) => p.settings.map((s) => s.env));
    checkSettingNames(config, declared);
    // VITRIN_PLUGIN_<NAME>_* passes the core's check (commands that never load folder plugins cannot know them); once
    // a plugin of that name is registered, a name under its prefix that nobody declares is a misspelling.
    const known = new Set([...settingNames, ...declared]);
    const prefixes = [...this.defs.values()].map((d) => ({ id: idOf(d), def: d, prefix: folderSettingPrefix(d.name) }));
    for (const name of Object.keys(config.environment)) {
      const owner = known.has(name) ? undefined : prefixes.find((p) => name.startsWith(p.prefix));
      if (!owner) continue;
      const reads = Object.values(owner.def.settings ?? {}).map((s) => (s as PluginSetting<unknown>).env);
      const list = reads.length ? `it reads ${reads.join(", ")}` : "it reads none";
      throw new ConfigError(`unknown setting ${name}: plugin ${owner.id} declares no such setting (${list}; vitrin plugins list shows every plugin's)`);
    }
    return values;
  }

  /** Every plugin command, with the plugin that adds it. */
  commands(): { plugin: PluginDefinition; command: PluginCommand }[] {
    return [...this.defs.values()].flatMap((plugin) => (plugin.commands ?? []).map((command) => ({ plugin, command })));
  }

  /** The plugin command whose words begin `positionals`, if any. */
  command(positionals: string[]): { plugin: PluginDefinition; command: PluginCommand } | null {
    return this.commands().find(({ command }) => command.words.every((w, i) => positionals[i] === w)) ?? null;
  }

  /**
   * The plugin the settings name for `slot`; a name nobody registered (a folder plugin not loaded, a typo) is a
   * configuration error naming the setting, one line at start (and in `plugins list`).
   */
  configured<S extends Slot>(slot: S, config: Config): PluginDefinition<S> {
    const key = SLOT_SETTINGS[slot];
    try {
      return this.find(slot, config[key]);
    } catch (e) {
      throw new ConfigError(`${variableOf(key)}: ${(e as Error).message}`);
    }
  }

  /** Creates and initialises the configured plugin of each slot; on a failure, closes what already started. */
  async start(ctx: StartContext): Promise<Plugins> {
    const settings = this.settings(ctx.config);
    const started: Started[] = [];
    const close = () => closeAll(started, ctx.logger);
    const boot = async (slot: Slot): Promise<unknown> => {
      // Folder plugins are loaded by now (serve, worker, plugins list), so a name nobody registered is no plugin at all.
      const def: PluginDefinition = this.configured(slot, ctx.config);
      const own = settings.get(idOf(def)) as Record<string, unknown>;
      return startOne(def, { ...ctx, settings: own, logger: ctx.logger.child({ plugin: idOf(def) }) }, started);
    };
    try {
      const slots: Partial<Record<SlotKey, unknown>> = {};
      for (const slot of Object.keys(SLOT_SETTINGS) as Slot[]) slots[SLOT_SETTINGS[slot]] = await boot(slot);
      return { ...(slots as Pick<Plugins, SlotKey>), all: started, readiness: () => readiness(started), close };
    } catch (e) {
      await close();
      throw e;
    }
  }
}

/**
 * Creates and initialises one plugin. What it cannot do is one line at start naming the plugin (exit 2): a ConfigError
 * of its own as it is, any other error with the plugin's id before its message (the stack goes to the debug log), and
 * an implementation without a method its slot requires.
 */
async function startOne<S extends Slot>(def: PluginDefinition<S>, ctx: PluginContext, started: Started[]): Promise<SlotMap[S]> {
  const id = idOf(def);
  const refused = (e: unknown, step: string) => {
    if (e instanceof ConfigError) return e;
    ctx.logger.debug("plugin failed to start", { plugin: id, step, err: e });
    return new ConfigError(`plugin ${id} could not start (${step} threw): ${e instanceof Error ? e.message : String(e)}`);
  };
  let instance: SlotMap[S];
  try {
    instance = await def.create(ctx);
  } catch (e) {
    throw refused(e, "create");
  }
  // The instance's slot and name are what logs, /readyz and the API say: the definition's, where it gives them at all.
  const said = instance as { slot?: unknown; name?: unknown } | null;
  if (said && ((said.slot !== undefined && said.slot !== def.slot) || (said.name !== undefined && said.name !== def.name))) {
    throw new ConfigError(`plugin ${id}: create() returned a plugin that calls itself ${JSON.stringify(said.slot)}/${JSON.stringify(said.name)}; its slot and name must be the definition's ("${def.slot}", "${def.name}")`);
  }
  const missing = REQUIRED_METHODS[def.slot].filter((m) => typeof (instance as Record<string, unknown> | null)?.[m] !== "function");
  if (missing.length > 0) {
    throw new ConfigError(`plugin ${id}: create() returned no ${missing.join(", ")} method${missing.length > 1 ? "s" : ""}, which every ${def.slot} plugin must have`);
  }
  try {
    await instance.init?.();
  } catch (e) {
    throw refused(e, "init");
  }
  started.push({ slot: def.slot, name: def.name, instance });
  return instance;
}

/** Closes the started plugins in reverse order; a plugin that fails to close is logged and the rest still close. */
async function closeAll(started: Started[], logger: Logger): Promise<void> {
  for (const p of [...started].reverse()) {
    try {
      await p.instance.close?.();
    } catch (e) {
      logger.error("plugin close failed", { plugin: `${p.slot}-${p.name}`, err: e });
    }
  }
  started.length = 0;
}

/** Each started plugin's own report (ok when it has no ready()); one that throws is not ready, with its message. */
async function readiness(started: Started[]): Promise<Record<string, ReadyReport>> {
  const out: Record<string, ReadyReport> = {};
  for (const p of started) {
    try {
      out[`${p.slot}-${p.name}`] = p.instance.ready ? await p.instance.ready() : { ok: true };
    } catch (e) {
      out[`${p.slot}-${p.name}`] = { ok: false, detail: (e as Error).message };
    }
  }
  return out;
}
