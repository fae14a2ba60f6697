// The PostgreSQL Db on a real server: embedded migrations applied once even by instances starting together, and
// serializable transactions retried on conflict with afterCommit hooks run only for the attempt that committed.
import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { eq } from "drizzle-orm";
import pgJournal from "../drizzle/pg/meta/_journal.json";
import { importedPostgresMigrationTags, postgresMigrations } from "../src/db/migrations";
import { openDatabase, type Db } from "../src/db";
import { pgClientOf } from "../src/db/postgres";
import { createPostgresDatabase, postgresAvailable } from "./helpers";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function fresh(): Promise<{ url: string; open(poolSize?: number): Db }> {
  const pg = await createPostgresDatabase();
  cleanups.push(() => pg.drop());
  return {
    url: pg.url,
    open(poolSize?: number) {
      const db = openDatabase(pg.url, { poolSize });
      cleanups.push(() => db.close());
      return db;
    },
  };
}

test("every generated PostgreSQL migration is imported (so it travels inside the binary)", () => {
  const onDisk = readdirSync(join(import.meta.dir, "..", "drizzle", "pg")).filter((f) => f.endsWith(".sql"));
  expect([...importedPostgresMigrationTags].sort()).toEqual(pgJournal.entries.map((e) => e.tag).sort());
  expect(onDisk.map((f) => f.replace(/\.sql$/, "")).sort()).toEqual([...importedPostgresMigrationTags].sort());
});

describe.skipIf(!postgresAvailable)("PostgreSQL database", () => {
  test("the pool opens no more connections than VITRIN_DATABASE_POOL allows, however many reads wait", async () => {
    const target = await fresh();
    const db = target.open(3);
    const name = new URL(target.url).pathname.slice(1);
    const watcher = openDatabase(target.url.replace(`/${name}`, "/test"), { poolSize: 1 });
    cleanups.push(() => watcher.close());
    // Bun's queries run when awaited; Promise.resolve starts them all now.
    const reads = Array.from({ length: 12 }, () => Promise.resolve(pgClientOf(db.read)`SELECT pg_sleep(0.2)`));
    await Bun.sleep(100);
    const [{ n }] = await pgClientOf(watcher.read)`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${name}`;
    await Promise.all(reads);
    expect(n).toBe(3);
  });

  test("an upgrade keeps the webhook attempts already logged when it re-keys their table by message", async () => {
    const pg = await fresh();
    // A database as the release before 0002 left it, with one message and its attempt.
    const old = new SQL({ url: pg.url, max: 1 });
    await old.unsafe(`CREATE TABLE "__drizzle_migrations" (id serial PRIMARY KEY, hash text NOT NULL, created_at bigint)`);
    for (const m of postgresMigrations().filter((m) => m.tag < "0002")) {
      for (const statement of m.statements) await old.unsafe(statement);
      await old.unsafe(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ($1, $2)`, [m.hash, m.when]);
    }
    await old.unsafe(`INSERT INTO accounts (id, name, created_at, updated_at) VALUES ('acct_1', 'a', 1, 1)`);
    await old.unsafe(`INSERT INTO webhook_messages (id, account_id, event, url, payload, status, attempt_count, created_at)
      VALUES ('msg_1', 'acct_1', 'ping', 'https://hooks.example/x', '{}', 'delivered', 1, 1)`);
    await old.unsafe(`INSERT INTO webhook_attempts (id, message_id, attempt, status_code, latency_ms, created_at) VALUES ('att_1', 'msg_1', 1, 200, 12, 2)`);
    await old.close();

    const db = pg.open();
    // Later migrations apply after it; this one comes first.
    expect((await db.migrate()).applied[0]).toBe("0002_attempts_by_message");
    const { webhookAttempts } = db.schema;
    expect(await db.read.select().from(webhookAttempts)).toEqual([
      { id: "att_1", messageId: "msg_1", attempt: 1, statusCode: 200, latencyMs: 12, responseSnippet: null, error: null, nextAttemptAt: null, createdAt: 2 },
    ]);
    const [key] = await pgClientOf(db.read).unsafe(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'webhook_attempts'::regclass AND contype = 'p'`,
    );
    expect(key.def).toBe("PRIMARY KEY (message_id, id)");
  });

  test("instances migrating at once apply each migration exactly once", async () => {
    const target = await fresh();
    const handles = [target.open(), target.open(), target.open()];
    const results = await Promise.all(handles.map((db) => db.migrate()));
    expect(results.flatMap((r) => r.applied)).toEqual(pgJournal.entries.map((e) => e.tag));
    expect((await handles[0].migrate()).applied).toEqual([]);
    expect(handles[0].dialect).toBe("postgres");
    expect(await handles[0].ping()).toBe(true);
  });

  test("a database migrated by a newer vitrin is refused, naming this binary's latest migration", async () => {
    const target = await fresh();
    const db = target.open();
    await db.migrate();
    const newer = postgresMigrations().at(-1)!.when + 1000;
    await pgClientOf(db.read).unsafe(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('from-a-newer-vitrin', $1)`, [newer]);
    await expect(db.migrate()).rejects.toThrow(`this one knows up to ${postgresMigrations().at(-1)!.tag}`);
  });

  test("conflicting serializable transactions are retried; hooks run once, after the commit that counted", async () => {
    const target = await fresh();
    const db = target.open();
    await db.migrate();
    const { accounts } = db.schema;
    await db.tx((tx) => tx.insert(accounts).values({ id: "acct_1", credits: 0, createdAt: 1, updatedAt: 1 }));
    let runs = 0;
    const committed: number[] = [];
    let bothRead!: () => void;
    const readBarrier = new Promise<void>((resolve) => (bothRead = resolve));
    let reads = 0;
    // Read, wait until the other has read too, then write what was read plus one: a lost update unless one retries.
    const increment = (n: number) =>
      db.tx(async (tx) => {
        runs++;
        const [row] = await tx.select({ credits: accounts.credits }).from(accounts).where(eq(accounts.id, "acct_1"));
        if (++reads === 2) bothRead();
        if (reads <= 2) await readBarrier;
        await tx.update(accounts).set({ credits: row.credits + 1 }).where(eq(accounts.id, "acct_1"));
        db.afterCommit(() => committed.push(n));
        return row.credits + 1;
      });
    const values = await Promise.all([increment(1), increment(2)]);
    expect(values.sort()).toEqual([1, 2]);
    expect(runs).toBe(3);
    expect(committed.sort()).toEqual([1, 2]);
    const [row] = await db.read.select({ credits: accounts.credits }).from(accounts);
    expect(row.credits).toBe(2);
  });

  test("a throw rolls the transaction back and drops its hooks; isolation can be lowered for one transaction", async () => {
    const target = await fresh();
    const db = target.open();
    await db.migrate();
    const { accounts } = db.schema;
    let hooked = false;
    const failing = db.tx(async (tx) => {
      await tx.insert(accounts).values({ id: "acct_x", createdAt: 1, updatedAt: 1 });
      db.afterCommit(() => (hooked = true));
      throw new Error("changed my mind");
    });
    expect(failing).rejects.toThrow("changed my mind");
    await failing.catch(() => undefined);
    expect(hooked).toBe(false);
    expect(await db.read.select().from(accounts)).toEqual([]);
    const levelOf = (options?: { isolation: "read committed" }) =>
      db.tx(async (tx) => (await pgClientOf(tx).unsafe("SELECT current_setting('transaction_isolation') AS level"))[0].level, options);
    expect(await levelOf()).toBe("serializable");
    expect(await levelOf({ isolation: "read committed" })).toBe("read committed");
  });
});
