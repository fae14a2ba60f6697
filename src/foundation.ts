// What the service stands on, opened in order: the templates, the plugins (built-in and folder ones) and then the
// database, so a template or plugin that cannot load stops the start before any migration touches the data; what
// opened is closed again when a later step fails.
import { ConfigError, type Config } from "./config";
import type { Logger } from "./kernel";
import { openDatabase, type Db } from "./db";
import { loadTemplates, type TemplateRegistry } from "./templates";
import { BUILTIN_TEMPLATES } from "../templates";
import type { PluginRegistry, Plugins } from "./plugins";
import { loadPluginFolders } from "./plugins/load";
import { builtinPlugins } from "../plugins";

export type FoundationOptions = {
  registry?: PluginRegistry;
  /** Where plugins read their own settings (process.env by default). */
  env?: Record<string, string | undefined>;
  /** An API-only instance: plugins learn it runs no jobs (PluginContext.runsJobs). */
  apiOnly?: boolean;
};

/** A folder that cannot be read or a module that does not load is a setting to fix: one line at start, exit 2. */
const asSetting = (setting: string) => (e: unknown): never => {
  throw e instanceof ConfigError ? e : new ConfigError(`${setting}: ${e instanceof Error ? e.message : String(e)}`);
};

/** Loads the templates and starts the plugins; a folder template's loading is logged. */
async function loadExtensions(config: Config, opts: FoundationOptions, logger: Logger): Promise<{ plugins: Plugins; templates: TemplateRegistry }> {
  const templates = await loadTemplates({ builtin: BUILTIN_TEMPLATES, dirs: config.templateDirs }).catch(asSetting("VITRIN_TEMPLATE_DIRS"));
  for (const tpl of templates.list()) if (!tpl.source.startsWith("builtin:")) logger.info("template loaded", { template: tpl.info.id, source: tpl.source });
  const registry = opts.registry ?? builtinPlugins();
  if (config.pluginDirs.length) await loadPluginFolders(config.pluginDirs, registry, logger).catch(asSetting("VITRIN_PLUGIN_DIRS"));
  const plugins = await registry.start({ config, logger, env: opts.env ?? process.env, templates, runsJobs: !opts.apiOnly });
  return { plugins, templates };
}

/** Opens the database and brings its schema up to date; a database that cannot migrate is closed again. */
async function openStore(config: Config, logger: Logger): Promise<Db> {
  const db: Db = openDatabase(config.databaseUrl, { poolSize: config.databasePool, busyTimeoutMs: config.databaseBusyTimeoutMs });
  try {
    // An upgrade's migrations run here, at start: the log says which, so an operator can tell when the schema moved.
    const { applied } = await db.migrate();
    if (applied.length) logger.info("migrated the database", { applied });
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** The templates, the plugins and the database; the plugins are closed again when the database cannot open. */
export async function openFoundation(config: Config, opts: FoundationOptions, logger: Logger) {
  const { plugins, templates } = await loadExtensions(config, opts, logger);
  try {
    return { db: await openStore(config, logger), plugins, templates };
  } catch (e) {
    await plugins.close();
    throw e;
  }
}
