// The command line as an operator meets it: --version, help that exits 0, numbers below zero without `--`, and start-up
// failures (a busy port, a missing or malformed Stripe key, S3 without its bucket, a slot set to an unknown plugin) as
// one clear line on stderr instead of a stack trace, exit 2 for those and for an unknown option; --json in snake_case.
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import packageJson from "../package.json";
import { childEnv, createPostgresDatabase, freePort, postgresAvailable, tempDir } from "./helpers";

const ROOT = join(import.meta.dir, "..");
const BUN = process.execPath;

type Ran = { code: number; out: string; err: string };

function cli(args: string[], extra: Record<string, string> = {}, dir = tempDir()): Ran {
  const env = childEnv(dir, freePort(), extra);
  const p = Bun.spawnSync([BUN, "run", join(ROOT, "src/main.ts"), ...args], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString() };
}

/** One line on stderr and no stack trace (Bun prints frames as "at …" lines and a source excerpt with "|"). */
function expectOneLine(err: string) {
  const lines = err.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(err).not.toMatch(/^\s+at /m);
}

describe("version and help", () => {
  test("--version and version print the package version and exit 0", () => {
    for (const args of [["--version"], ["version"]]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      expect(r.out.trim()).toBe(`vitrin ${packageJson.version}`);
    }
  });

  test("--help and help exit 0 with the whole usage", () => {
    for (const args of [["--help"], ["help"], ["-h"]]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      expect(r.out).toContain("vitrin accounts grant ID AMOUNT");
      expect(r.out).toContain("vitrin serve");
    }
  });

  test("help COMMAND and COMMAND --help exit 0 with that command's usage only", () => {
    for (const args of [["help", "accounts"], ["accounts", "--help"], ["accounts", "grant", "--help"]]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      expect(r.out).toContain("vitrin accounts grant ID AMOUNT");
      expect(r.out).not.toContain("vitrin serve");
    }
    const plugin = cli(["help", "models"]);
    expect(plugin.code).toBe(0);
    expect(plugin.out).toContain("vitrin models install");
  });

  test("help for a command that does not exist says so and exits 2", () => {
    const r = cli(["help", "frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown command "frobnicate"');
  });
});

describe("numbers below zero", () => {
  test("a correction of -5 credits needs no `--`, before or after an option", () => {
    const dir = tempDir();
    const created = cli(["accounts", "create", "--credits", "10", "--json"], {}, dir);
    expect(created.code).toBe(0);
    const id = JSON.parse(created.out).account.id as string;
    const first = cli(["accounts", "grant", id, "-5", "--json"], {}, dir);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ amount: -5, balance_after: 5 });
    const second = cli(["accounts", "grant", "--description", "typo", id, "-2", "--json"], {}, dir);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ amount: -2, balance_after: 3 });
  });

  test("an option's negative value reaches the option: --credits -5 is refused by its range, in one line", () => {
    const r = cli(["accounts", "create", "--credits", "-5"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("credits:");
    expectOneLine(r.err);
  });
});

describe("start-up failures", () => {
  test("a busy port is one line naming the port and VITRIN_PORT, exit 1, said before any start-up work", () => {
    const taken = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const dir = tempDir();
      const p = Bun.spawnSync([BUN, "run", join(ROOT, "src/main.ts"), "serve"], {
        cwd: ROOT,
        env: childEnv(dir, taken.port),
        stdout: "pipe",
        stderr: "pipe",
      });
      const err = p.stderr.toString();
      expect(p.exitCode).toBe(1);
      expect(err).toContain(`port ${taken.port} is in use: another program listens on it; set VITRIN_PORT`);
      expect(err).not.toContain("Is port");
      expectOneLine(err);
      // Said before the database was opened (and before the model was assembled): the data dir holds no database.
      expect(existsSync(join(dir, "vitrin.db"))).toBe(false);
    } finally {
      taken.stop(true);
    }
  });

  test.each([
    ["a name that is no address", "notahost", "a free port"],
    ["an address not on this machine", "10.255.255.1", "a free port"],
    ["an address not on this machine", "10.255.255.1", "port 0"],
  ])("a VITRIN_HOST that is %s is one configuration line naming VITRIN_HOST, exit 2, before any start-up work (%s, %s)", (_what, host, port) => {
    const dir = tempDir();
    const p = Bun.spawnSync([BUN, "run", join(ROOT, "src/main.ts"), "serve"], {
      cwd: ROOT,
      env: { ...childEnv(dir, port === "port 0" ? 0 : freePort()), VITRIN_HOST: host },
      stdout: "pipe",
      stderr: "pipe",
    });
    const err = p.stderr.toString();
    expect(p.exitCode).toBe(2);
    expect(err).toStartWith(`configuration error: VITRIN_HOST="${host}": cannot listen there`);
    expectOneLine(err);
    expect(existsSync(join(dir, "vitrin.db"))).toBe(false);
  });

  // Each a setting vitrin cannot start with, and what its one line must say.
  const refusals: [string, Record<string, string>, string][] = [
    ["the Stripe plugin without its keys", { VITRIN_PAYMENT: "stripe" }, "configuration error: VITRIN_PAYMENT=stripe needs VITRIN_STRIPE_SECRET_KEY"],
    [
      "a Stripe key that is not a secret key",
      { VITRIN_PAYMENT: "stripe", VITRIN_STRIPE_SECRET_KEY: "pk_live_publishable", VITRIN_STRIPE_WEBHOOK_SECRET: "whsec_x" },
      "VITRIN_STRIPE_SECRET_KEY must be a Stripe secret key",
    ],
    [
      "a Stripe webhook secret that is not a signing secret",
      { VITRIN_PAYMENT: "stripe", VITRIN_STRIPE_SECRET_KEY: "sk_test_abc", VITRIN_STRIPE_WEBHOOK_SECRET: "nope" },
      "configuration error: VITRIN_STRIPE_WEBHOOK_SECRET must be the webhook endpoint's signing secret (whsec_…)",
    ],
    [
      "serve with a slot set to a plugin nobody registered",
      { VITRIN_BACKGROUND_REMOVAL: "bogus" },
      'configuration error: VITRIN_BACKGROUND_REMOVAL: unknown background-removal plugin "bogus"',
    ],
    ["S3 storage without its bucket and keys", { VITRIN_STORAGE: "s3" }, "configuration error: VITRIN_STORAGE=s3 needs VITRIN_S3_BUCKET"],
  ];
  for (const [what, env, said] of refusals) {
    test(`${what} is one configuration line, exit 2`, () => {
      const r = cli(["serve"], env);
      expect(r.code).toBe(2);
      expect(r.err).toContain(said);
      expectOneLine(r.err);
    });
  }

  test("a data dir that cannot be made (a file in its way) is one configuration line naming VITRIN_DATA_DIR, for serve and for commands", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "data"), "a file, not a folder");
    for (const args of [["serve"], ["accounts", "create"]]) {
      const r = cli(args, { VITRIN_DATA_DIR: join(dir, "data", "vitrin") }, dir);
      expect([args.join(" "), r.code]).toEqual([args.join(" "), 2]);
      expect(r.err).toStartWith("configuration error: VITRIN_DATA_DIR: ");
      expect(r.err).toContain("set VITRIN_DATA_DIR");
      expectOneLine(r.err);
    }
  });

  test("commands that read a service's data refuse a data dir without a database instead of making an empty one", () => {
    for (const args of [["ledger", "check"], ["accounts", "list"], ["jobs", "list"], ["tokens", "list", "acct_x"]]) {
      const dir = tempDir();
      const r = cli(args, {}, dir);
      expect([args.join(" "), r.code]).toEqual([args.join(" "), 2]);
      expect(r.err).toStartWith(`configuration error: VITRIN_DATA_DIR: no database at ${join(dir, "vitrin.db")}`);
      expectOneLine(r.err);
      expect(existsSync(join(dir, "vitrin.db"))).toBe(false);
    }
    // The first command of a new install still makes it.
    expect(cli(["accounts", "create", "--name", "Shop"]).code).toBe(0);
  });

  test("an unknown option is a usage error, exit 2, one line beginning error: as the others", () => {
    const r = cli(["accounts", "create", "--nope"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("error: unknown option --nope; vitrin help lists the options\n");
    expectOneLine(r.err);
  });
});

describe("--json", () => {
  test("models install --json answers in snake_case like every other command", () => {
    const r = cli(["models", "install", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(Object.keys(out).sort()).toEqual(["action", "bytes", "file", "model_dir", "sha256"]);
    expect(out.action).toBe("assembled");
  }, 120_000);

  test.skipIf(!postgresAvailable)("on PostgreSQL with local files, ledger check --json prints only its JSON; the warning goes to stderr", async () => {
    const pg = await createPostgresDatabase();
    try {
      const r = cli(["ledger", "check", "--json"], { VITRIN_DATABASE_URL: pg.url });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ mismatches: [] });
      expect(r.err).toContain("VITRIN_STORAGE=local with PostgreSQL");
    } finally {
      await pg.drop();
    }
  }, 60_000);
});
