// The vitrin command line: `serve`, `worker`, `migrate`, `accounts`, `tokens`, `jobs`, `backup`, `restore` and the
// commands plugins add (such as `models install`); the compiled binary takes the same words.
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, type Config } from "./config";
import { createLogger, isApiError, iso, settleLogs, stderrSink, systemClock } from "./kernel";
import { databaseFailure, openDatabase, requireExistingDatabase, type Db } from "./db";
import { accountJson, createAccounts, createStudioSessions, loginLinkJson, tokenJson } from "./accounts";
import { checkNativeDir, copyOut, copyOutInChild, UNPACK_COMMAND, unpackAll } from "./native";
import { createService, JOB_KINDS } from "./service";
import { JobEngine, JOB_STATUSES, type JobStatus } from "./jobs";
import { isListenError, jobJson, listenError, refuseListen } from "./http";
import { backupCommand, restoreCommand } from "./backup";
import { printHelp, protectNegatives, unmarkNegatives, type CoreCommand, type PluginRegistry } from "./plugins";
import { listPlugins, pluginsCommand, runPluginCommand } from "./plugins/cli";
import { isParseArgsError, parseArgsMessage, usageError, wordsFit, wrongWords } from "./plugins/commands";
import { loadPluginFolders } from "./plugins/load";
import { builtinPlugins, copiedOutFiles } from "../plugins";
import packageJson from "../package.json";

const coreUsage = `  vitrin version                    the version of this vitrin (also --version)
  vitrin help [COMMAND]             this text, or one command's usage (also COMMAND --help)
  vitrin serve [--port N] [--host ADDR] [--data-dir DIR] [--no-worker]   the API (and jobs, unless --no-worker)
  vitrin worker [--port N] [--host ADDR] [--data-dir DIR]                 jobs only; the port answers /healthz /readyz /metrics
  vitrin migrate [--data-dir DIR]   apply the database's pending migrations and exit (serve and worker do on start)
  vitrin health [--port N] [--json] exit 0 when the server on VITRIN_HOST:VITRIN_PORT is ready
  vitrin accounts create [--name NAME] [--credits N] [--language CODE] [--premium] [--json]
  vitrin accounts list [--json]
  vitrin accounts update ID [--premium | --no-premium] [--language CODE] [--name NAME] [--json]
  vitrin accounts grant ID AMOUNT [--description TEXT] [--json]
  vitrin accounts login-link ACCOUNT_ID [--json]   a one-time Studio sign-in URL (15 minutes, usable once)
  vitrin tokens create ACCOUNT_ID [--name NAME] [--json]
  vitrin tokens list ACCOUNT_ID [--json]
  vitrin tokens revoke TOKEN_ID
  vitrin jobs list [--status queued|running|succeeded|failed|dead] [--kind KIND] [--json]
  vitrin jobs redrive JOB_ID
  vitrin topups complete TOP_UP_ID [--json]
  vitrin ledger check [--json]
  vitrin backup PATH [--data-dir DIR] [--force] [--json]              one .tar.gz of the database and stored files, while serving
  vitrin restore PATH [--data-dir DIR] [--force] [--check] [--json]   verify PATH, then restore it into DIR (--check: verify only)
  vitrin plugins list [--json]                                        every plugin (built in and from VITRIN_PLUGIN_DIRS), which is in use, the settings each reads
  vitrin plugins kit DIR [--force] [--json]                           the plugin kit's types (@vitrin/plugin-kit) as an npm tarball in DIR`;

/** --help: the core's commands, then each plugin's (built-in, and from VITRIN_PLUGIN_DIRS when loaded). */
function usage(registry: PluginRegistry): string {
  const plugins = registry
    .commands()
    .map(({ plugin, command }) => `  ${`vitrin ${command.words.join(" ")} ${command.usage}`.padEnd(68)}${command.description} (plugin ${plugin.slot}-${plugin.name})`);
  return [
    "vitrin — self-hosted product videos",
    "",
    "Usage:",
    coreUsage,
    ...plugins,
    "",
    "Settings come from VITRIN_* environment variables (see the configuration table); --port, --host and --data-dir override them.",
  ].join("\n");
}

type Out = { json: boolean; print: (human: string, data: unknown) => void };

function output(json: boolean): Out {
  return {
    json,
    print(human, data) {
      console.log(json ? JSON.stringify(data, null, 2) : human);
    },
  };
}

const options = {
  port: { type: "string" },
  host: { type: "string" },
  "data-dir": { type: "string" },
  "no-worker": { type: "boolean" },
  json: { type: "boolean" },
  name: { type: "string" },
  credits: { type: "string" },
  language: { type: "string" },
  premium: { type: "boolean" },
  "no-premium": { type: "boolean" },
  description: { type: "string" },
  status: { type: "string" },
  kind: { type: "string" },
  force: { type: "boolean" },
  check: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true; strict: true }>>["values"];

/** What every command gets: the configuration, the parsed options, the words after the command, and how to print. */
type Invocation = { config: Config; values: Values; command: string; sub: string | undefined; rest: string[]; out: Out; usage: string; registry: PluginRegistry };

function configFrom(values: Values, environment: Record<string, string | undefined>): Config {
  const env = { ...environment };
  if (typeof values.port === "string") env.VITRIN_PORT = values.port;
  if (typeof values.host === "string") env.VITRIN_HOST = values.host;
  if (typeof values["data-dir"] === "string") env.VITRIN_DATA_DIR = values["data-dir"];
  return loadConfig(env);
}

async function withAccounts<T>(config: Config, fn: (accounts: ReturnType<typeof createAccounts>, db: Db) => Promise<T>): Promise<T> {
  const db = openDatabase(config.databaseUrl, { poolSize: config.databasePool });
  try {
    await db.migrate();
    return await fn(createAccounts(db, systemClock), db);
  } finally {
    db.close();
  }
}

async function serve({ config, values, command }: Invocation): Promise<number> {
  const worker = command === "worker";
  const apiOnly = !worker && Boolean(values["no-worker"]);
  checkNativeDir();
  const early = listenError(config.port, config.host);
  if (early) return refuseListen(config.port, config.host, early);
  const service = await createService(config, { worker: !apiOnly, apiOnly });
  try {
    (worker ? service.listenWorker : service.listen)();
  } catch (e) {
    await service.stop();
    if (!isListenError(e)) throw e;
    return refuseListen(config.port, config.host, e);
  }
  // In a binary, the fonts a render needs are copied out by a child, so this process never reads them (src/native).
  copyOutInChild(copiedOutFiles());
  let signals = 0;
  const onSignal = (signal: string) => {
    signals++;
    if (signals > 1) process.exit(1);
    service.logger.info("shutting down", { signal });
    service.stop().then(
      // The logger writes its batch on the next turn; exit after it, so "stopped" is not lost.
      () => setImmediate(() => process.exit(0)),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  process.on("SIGINT", () => onSignal("SIGINT"));
  return await new Promise<number>(() => {});
}

/** For container health checks: asks this machine's running server whether it is ready (no curl needed). */
async function health({ config, out }: Invocation): Promise<number> {
  const url = `http://${config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host}:${config.port}/readyz`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    const body = await res.text();
    out.print(`${res.status} ${body}`, { status: res.status, body: JSON.parse(body || "null") });
    return res.status === 200 ? 0 : 1;
  } catch (e) {
    const error = (e as Error).message;
    out.print(`${url} not reachable: ${error} (set VITRIN_HOST and VITRIN_PORT, or --port, to the server's)`, { url, status: null, error });
    return 1;
  }
}

async function migrate({ config, out }: Invocation): Promise<number> {
  const db = openDatabase(config.databaseUrl, { poolSize: config.databasePool });
  try {
    const { applied } = await db.migrate();
    out.print(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date", { applied });
  } finally {
    db.close();
  }
  return 0;
}

async function accounts({ config, values, command, sub, rest, out, usage }: Invocation): Promise<number> {
  return withAccounts(config, async (accounts, db) => {
    if (sub === "login-link" && rest[0]) {
      const link = loginLinkJson(config.publicUrl, await createStudioSessions(db, systemClock, config.adminToken).createLoginLink(rest[0]));
      return out.print(link.url, link), 0;
    }
    if (sub === "create") {
      const credits = values.credits === undefined ? 0 : Number(values.credits);
      const { account, token } = await accounts.create({
        name: values.name,
        credits,
        language: values.language,
        isPremium: values.premium === true,
      });
      out.print(
        `account ${account.id} created\ntoken (shown once, keep it): ${token.token}`,
        { account: accountJson(account), token: token.token, token_id: token.id },
      );
      return 0;
    }
    if (sub === "list") {
      const rows = (await accounts.list()).map(accountJson);
      out.print(rows.map((a) => `${a.id}\t${a.credits} credits\t${a.language}\t${a.name}`).join("\n") || "no accounts", {
        data: rows,
      });
      return 0;
    }
    if (sub === "update" && rest[0]) {
      const isPremium = values.premium ? true : values["no-premium"] ? false : undefined;
      const row = await accounts.update(rest[0], { isPremium, language: values.language, name: values.name });
      out.print(`account ${row.id} updated`, accountJson(row));
      return 0;
    }
    if (sub === "grant" && rest[0] && rest[1]) {
      const txn = await accounts.grant(rest[0], Number(rest[1]), values.description);
      out.print(`${txn.amount} credits booked on ${rest[0]} (${txn.id}); balance ${txn.balance_after}`, txn);
      return 0;
    }
    return wrongWords(usage, command, sub);
  });
}

async function tokens({ config, values, command, sub, rest, out, usage }: Invocation): Promise<number> {
  return withAccounts(config, async (accounts) => {
    if (sub === "create" && rest[0]) {
      const token = await accounts.createToken(rest[0], values.name ?? "");
      // The same fields as the API's issued token (POST /v1/tokens) and as `accounts create`'s token_id and token.
      out.print(`token ${token.id} (shown once, keep it): ${token.token}`, { id: token.id, object: "token", name: values.name ?? "", token: token.token });
      return 0;
    }
    if (sub === "list" && rest[0]) {
      const rows = await accounts.listTokens(rest[0]);
      out.print(rows.map((r) => `${r.id}\t${r.hint}\t${r.revokedAt ? "revoked" : "active"}\t${r.name}`).join("\n") || "no tokens", {
        // As the API lists tokens (snake_case, ISO dates), with revoked ones too and when they were revoked.
        data: rows.map((r) => ({ ...tokenJson(r), revoked_at: r.revokedAt === null ? null : iso(r.revokedAt) })),
      });
      return 0;
    }
    if (sub === "revoke" && rest[0]) {
      const ok = await accounts.revokeToken(rest[0]);
      out.print(ok ? `token ${rest[0]} revoked` : `no live token ${rest[0]}`, { id: rest[0], revoked: ok });
      return ok ? 0 : 1;
    }
    return wrongWords(usage, command, sub);
  });
}

/** `topups complete` and `ledger check` need the billing module, which needs the plugins: the service, not serving. */
async function billing({ config, values, command, sub, rest, out, usage }: Invocation): Promise<number> {
  const topUpId = command === "topups" && sub === "complete" ? rest[0] : undefined;
  // Refused before the service starts (and its plugins with it), so a missing id is said at once.
  if (!topUpId && !(command === "ledger" && sub === "check")) return wrongWords(usage, command, sub);
  // API-only: these commands run no jobs, so the cut-out model is not assembled for them.
  const service = await createService(config, { worker: false, apiOnly: true, logger: createLogger("warn", stderrSink) });
  try {
    if (topUpId) {
      const out = await service.billing.completeManually(topUpId);
      console.log(values.json ? JSON.stringify(out, null, 2) : out.credited ? `top-up ${out.id} paid: ${out.credits} credits booked` : `top-up ${out.id} was already paid; nothing booked`);
      return 0;
    }
    const report = await service.billing.ledgerCheck();
    out.print(
      report.mismatches.length === 0
        ? `ledger sound: credits equal the sum of transactions for ${report.accounts === 1 ? "the one account" : `all ${report.accounts} accounts`}`
        : report.mismatches.map((m) => `${m.account_id}: credits ${m.credits} but transactions sum to ${m.sum}`).join("\n"),
      report,
    );
    return report.mismatches.length === 0 ? 0 : 1;
  } finally {
    await service.stop();
  }
}

async function jobs({ config, values, command, sub, rest, out, usage }: Invocation): Promise<number> {
  const db = openDatabase(config.databaseUrl, { poolSize: config.databasePool });
  try {
    await db.migrate();
    const engine = new JobEngine({ db, clock: systemClock, logger: createLogger("silent") });
    if (sub === "list") {
      if (values.status !== undefined && !JOB_STATUSES.includes(values.status as JobStatus)) {
        return usageError(`--status must be one of ${JOB_STATUSES.join(", ")}`);
      }
      const rows = (await engine.listJobs({ status: values.status as JobStatus | undefined, kind: values.kind, limit: 500 })).map(jobJson);
      // As the admin API checks its filter: this engine registers no kinds, so it is given the service's list.
      // An empty --kind would filter nothing and list every job: refused as the API refuses `?kind=`.
      if (values.kind !== undefined && (values.kind === "" || (rows.length === 0 && !(await engine.isKnownKind(values.kind, JOB_KINDS))))) {
        return usageError(`--kind must be one of ${JOB_KINDS.join(", ")}`);
      }
      out.print(
        rows.map((j) => `${j.id}\t${j.kind}\t${j.status}\t${j.attempts}/${j.max_attempts}\t${j.last_error ?? ""}`).join("\n") || "no jobs",
        { data: rows },
      );
      return 0;
    }
    if (sub === "redrive" && rest[0]) {
      const ok = await engine.redrive(rest[0]);
      out.print(ok ? `job ${rest[0]} queued again` : `job ${rest[0]} is not dead (or does not exist)`, { id: rest[0], redriven: ok });
      return ok ? 0 : 1;
    }
    return wrongWords(usage, command, sub);
  } finally {
    db.close();
  }
}

async function backupOrRestore({ config, values, command, sub, rest, out, usage }: Invocation): Promise<number> {
  if (!sub || rest.length > 0) return wrongWords(usage, command, sub);
  const options = { force: values.force === true, check: values.check === true };
  return command === "backup" ? backupCommand(config, sub, options, out) : restoreCommand(config, sub, options, out);
}

// Typed by CORE_COMMANDS, the words no plugin command may take ("version" and "help" are answered before these).
const coreCommands: Record<Exclude<CoreCommand, "version" | "help">, (invocation: Invocation) => Promise<number>> = {
  serve,
  worker: serve,
  health,
  migrate,
  accounts,
  tokens,
  topups: billing,
  ledger: billing,
  jobs,
  backup: backupOrRestore,
  restore: backupOrRestore,
  plugins: ({ config, values, sub, rest, out, usage, registry }) =>
    sub === "list" && rest.length === 0 ? listPlugins(registry, config, out) : pluginsCommand([sub, ...rest], values.force === true, out.print, usage),
};

/** The usage with the commands of plugins from VITRIN_PLUGIN_DIRS too; a folder that fails to load is named, not fatal. */
async function usageWithFolders(registry: PluginRegistry, values: Values, env: Record<string, string | undefined>): Promise<string> {
  try {
    const { pluginDirs } = configFrom(values, env);
    if (pluginDirs.length) await loadPluginFolders(pluginDirs, registry);
  } catch (e) {
    console.error(`(commands of folder plugins not listed: ${(e as Error).message})`);
  }
  return usage(registry);
}

/** Runs one command line; `registry` and `env` are the built-in plugins and process.env unless a test passes others. */
export async function run(argv: string[], registry: PluginRegistry = builtinPlugins(), env: Record<string, string | undefined> = process.env): Promise<number> {
  const takesValue = (name: string) => options[name as keyof typeof options]?.type === "string";
  const parsed = parseArgs({ args: protectNegatives(argv, takesValue), allowPositionals: true, strict: true, options });
  const values = parsed.values;
  const positionals = unmarkNegatives(parsed.positionals);
  const [command, sub, ...rest] = positionals;
  const help = command === "help" || values.help || !command ? await usageWithFolders(registry, values, env) : usage(registry);
  if (values.version || command === "version") {
    console.log(`vitrin ${packageJson.version}`);
    return 0;
  }
  if (command === "help") return printHelp(help, sub);
  if (values.help) return printHelp(help, command);
  if (!command) {
    console.log(help);
    return 2;
  }
  const config = configFrom(values, env);
  // Every setting is checked before any command runs, the plugins' too, as the service does at start.
  registry.settings(config);
  if (["accounts", "tokens", "topups", "ledger", "jobs"].includes(command)) {
    // The words first: `vitrin topups` on a machine without a database is a usage slip, not a missing database.
    if (!wordsFit(help, command, sub, rest)) return wrongWords(help, command, sub);
    if (!(command === "accounts" && sub === "create")) requireExistingDatabase(config.databaseUrl);
  }
  const invocation: Invocation = { config, values, command, sub, rest, out: output(values.json === true), usage: help, registry };
  const core = (coreCommands as Record<string, (invocation: Invocation) => Promise<number>>)[command];
  return core ? core(invocation) : runPluginCommand(registry, positionals, config, invocation.out);
}

if (import.meta.main && process.argv[2] === UNPACK_COMMAND) {
  // A compiled binary's child that unpacks the native files and the fonts, so its parent's memory never holds them (src/native).
  Promise.all([unpackAll(), copyOut(copiedOutFiles())]).then(
    () => process.exit(0),
    (e) => {
      console.error(`could not unpack the native files: ${(e as Error).message}`);
      process.exit(1);
    },
  );
} else if (import.meta.main) {
  run(process.argv.slice(2)).then(
    // A log that cannot be written (stdout closed by `| head`) does not hold the exit back.
    (code) => settleLogs().then(() => process.exit(code), () => process.exit(code)),
    async (e) => {
      if (e instanceof ConfigError) console.error(`configuration error: ${e.message}`);
      else if (isApiError(e)) console.error(`error: ${e.message}`);
      else if (isParseArgsError(e)) console.error(`error: ${parseArgsMessage(e)}`);
      else console.error(databaseFailure(e, process.env.VITRIN_DATABASE_URL?.trim()) ?? e);
      const usageSlip = isParseArgsError(e);
      // A value the command cannot take (400, 422) is a usage error; any other refusal (a correction below zero, an
      // unknown id) means the command could not be done, as when `jobs redrive` finds no dead job.
      const badInput = isApiError(e) && (e.status === 400 || e.status === 422);
      await settleLogs().catch(() => {});
      process.exit(e instanceof ConfigError || badInput || usageSlip ? 2 : 1);
    },
  );
}
