// The command line's usage errors: one line on stderr beginning `error:`, exit 2, whatever was wrong (a missing id, a
// subcommand a command lacks, an unknown command, a bad --status), and `jobs list --kind` checked against the kinds
// the admin API knows, as its filter is.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { run } from "../src/main";
import { parseArgsMessage } from "../src/plugins/commands";
import { JOB_KINDS } from "../src/service";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db";
import { JobEngine } from "../src/jobs";
import { systemClock, createLogger } from "../src/kernel";
import { builtinPlugins } from "../plugins";
import { tempDir } from "./helpers";

let dir: string;
let said: string[];
let printed: string[];
const { error, log } = console;

beforeEach(async () => {
  dir = tempDir();
  said = [];
  printed = [];
  console.error = (...parts: unknown[]) => said.push(parts.join(" "));
  console.log = (...parts: unknown[]) => printed.push(parts.join(" "));
  // The commands that read a service's data want its database made first.
  expect(await vitrin("migrate")).toBe(0);
  printed = [];
});
afterEach(() => {
  console.error = error;
  console.log = log;
});

const vitrin = (...args: string[]) => run(args, builtinPlugins(), { VITRIN_DATA_DIR: dir, VITRIN_LOG_LEVEL: "silent" });

/** A job of `kind` in the data dir's table, due long after the test (so it stays queued). */
async function enqueueLater(kind: string) {
  const db = openDatabase(loadConfig({ VITRIN_DATA_DIR: dir }).databaseUrl);
  try {
    const engine = new JobEngine({ db, clock: systemClock, logger: createLogger("silent") });
    await db.tx((tx) => engine.enqueue(tx, kind, {}, { runAt: Date.parse("2100-01-01") }));
  } finally {
    db.close();
  }
}

/** The command exited 2 with exactly this one line on stderr. */
async function refused(args: string[], line: string) {
  said = [];
  expect([args.join(" "), await vitrin(...args)]).toEqual([args.join(" "), 2]);
  expect(said).toEqual([line]);
}

test("jobs list --kind that names no kind is one line listing the service's kinds, exit 2; a known kind lists", async () => {
  await refused(["jobs", "list", "--kind", "nope"], `error: --kind must be one of ${JOB_KINDS.join(", ")}`);
  expect(JOB_KINDS).toContain("webhook.deliver");
  expect(await vitrin("jobs", "list", "--kind", "webhook.deliver")).toBe(0);
  expect(printed).toEqual(["no jobs"]);
});

test("jobs list --kind of a kind no longer registered but still in the table lists its jobs, as the API does", async () => {
  await enqueueLater("old.kind");
  expect(await vitrin("jobs", "list", "--kind", "old.kind")).toBe(0);
  expect(printed.join("\n")).toContain("\told.kind\tqueued\t");
});

test("a --status the list cannot take is a usage error beginning error:, as the others", async () => {
  await refused(["jobs", "list", "--status", "done"], "error: --status must be one of queued, running, succeeded, failed, dead");
});

test("a command missing its id is one line with that command's usage, not the whole help", async () => {
  await refused(["topups", "complete"], "error: usage: vitrin topups complete TOP_UP_ID [--json]");
  await refused(["accounts", "grant", "acct_x"], "error: usage: vitrin accounts grant ID AMOUNT [--description TEXT] [--json]");
  await refused(["backup"], "error: usage: vitrin backup PATH [--data-dir DIR] [--force] [--json]");
  await refused(["plugins", "kit"], "error: usage: vitrin plugins kit DIR [--force] [--json]");
});

test("a subcommand missing or unknown names the ones the command has, a plugin's command too", async () => {
  await refused(["jobs"], "error: vitrin jobs needs one of: list, redrive (vitrin help jobs shows their usage)");
  await refused(["topups", "finish", "top_x"], 'error: unknown command "topups finish"; vitrin topups has: complete (vitrin help topups shows their usage)');
  await refused(["models", "frob"], 'error: unknown command "models frob"; vitrin models has: install (vitrin help models shows their usage)');
});

test("an unknown command, run or asked help for, is one line naming vitrin help", async () => {
  await refused(["frobnicate"], 'error: unknown command "frobnicate"; vitrin help lists the commands');
  await refused(["help", "frobnicate"], 'error: unknown command "frobnicate"; vitrin help lists the commands');
});

test("an empty --kind is refused, not taken for no filter (which listed every job)", async () => {
  await enqueueLater("webhook.deliver");
  await refused(["jobs", "list", "--kind", ""], `error: --kind must be one of ${JOB_KINDS.join(", ")}`);
});

test("words a command cannot take are said as such before any database is looked for", async () => {
  const empty = tempDir();
  const bare = (...args: string[]) => run(args, builtinPlugins(), { VITRIN_DATA_DIR: empty, VITRIN_LOG_LEVEL: "silent" });
  said = [];
  expect(await bare("topups")).toBe(2);
  expect(await bare("accounts", "grant", "acct_x")).toBe(2);
  expect(said).toEqual([
    "error: vitrin topups needs one of: complete (vitrin help topups shows their usage)",
    "error: usage: vitrin accounts grant ID AMOUNT [--description TEXT] [--json]",
  ]);
  // Well-formed words still meet the missing database.
  await expect(bare("ledger", "check")).rejects.toThrow(/no database at/);
});

test("an unknown option is said in one short line naming it, without parseArgs's advice about --", async () => {
  const thrown = await vitrin("jobs", "list", "--frob").catch((e) => e);
  expect(parseArgsMessage(thrown)).toBe("unknown option --frob; vitrin help lists the options");
  const missing = await vitrin("tokens", "create", "acct_x", "--name").catch((e) => e);
  expect(parseArgsMessage(missing)).toBe("Option '--name <value>' argument missing; vitrin help lists the options");
});
