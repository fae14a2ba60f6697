// The migration set: every journal entry is embedded, and migrating is idempotent and safe from two processes.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { Database } from "bun:sqlite";
import journal from "../drizzle/sqlite/meta/_journal.json";
import { importedMigrationTags, sqliteMigrations } from "../src/db/migrations";
import { openDatabase, WalSync, type SyncFile } from "../src/db";
import { ConfigError } from "../src/config";
import { tempDir } from "./helpers";

describe("migrations", () => {
  test("every generated migration is imported (so it travels inside the binary)", () => {
    const onDisk = readdirSync(join(import.meta.dir, "..", "drizzle", "sqlite")).filter((f) => f.endsWith(".sql"));
    expect(importedMigrationTags.sort()).toEqual(journal.entries.map((e) => e.tag).sort());
    expect(onDisk.map((f) => f.replace(/\.sql$/, "")).sort()).toEqual(importedMigrationTags.sort());
  });

  test("migrate applies once and then reports nothing to do", async () => {
    const db = openDatabase(`sqlite:${join(tempDir(), "v.db")}`);
    expect((await db.migrate()).applied.length).toBe(journal.entries.length);
    expect((await db.migrate()).applied).toEqual([]);
    db.close();
  });

  test("a database migrated by a newer vitrin is refused, naming this binary's latest migration, and left as it was", async () => {
    const file = join(tempDir(), "v.db");
    const db = openDatabase(`sqlite:${file}`);
    await db.migrate();
    db.close();
    const newer = sqliteMigrations().at(-1)!.when + 1000;
    const raw = new Database(file);
    raw.query(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('from-a-newer-vitrin', ?)`).run(newer);
    raw.close();
    const again = openDatabase(`sqlite:${file}`);
    const refusal = again.migrate();
    await expect(refusal).rejects.toBeInstanceOf(ConfigError);
    await expect(refusal).rejects.toThrow(`this one knows up to ${sqliteMigrations().at(-1)!.tag}`);
    again.close();
  });

  test("a new database and the folder made for it are the service user's alone (0600, 0700)", async () => {
    const dir = join(tempDir(), "data");
    const db = openDatabase(`sqlite:${join(dir, "vitrin.db")}`);
    await db.migrate();
    expect((statSync(dir).mode & 0o777).toString(8)).toBe("700");
    for (const name of ["vitrin.db", "vitrin.db-wal"]) expect([name, (statSync(join(dir, name)).mode & 0o777).toString(8)]).toEqual([name, "600"]);
    db.close();
  });

  test("two handles migrating the same file at once apply each migration exactly once", async () => {
    const path = `sqlite:${join(tempDir(), "v.db")}`;
    const a = openDatabase(path);
    const b = openDatabase(path);
    const [ra, rb] = await Promise.all([a.migrate(), b.migrate()]);
    expect(ra.applied.length + rb.applied.length).toBe(journal.entries.length);
    a.close();
    b.close();
  });

  test("an upgrade keeps the webhook attempts already logged when it re-keys their table by message", async () => {
    const path = join(tempDir(), "v.db");
    // A database as the release before 0003 left it, with one message and its attempt.
    const old = new Database(path, { create: true });
    old.exec(`CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
    for (const m of sqliteMigrations().filter((m) => m.tag < "0003")) {
      for (const statement of m.statements) old.exec(statement);
      old.query(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)`).run(m.hash, m.when);
    }
    old.exec(`INSERT INTO accounts (id, name, created_at, updated_at) VALUES ('acct_1', 'a', 1, 1)`);
    old.exec(`INSERT INTO webhook_messages (id, account_id, event, url, payload, status, attempt_count, created_at)
      VALUES ('msg_1', 'acct_1', 'ping', 'https://hooks.example/x', '{}', 'delivered', 1, 1)`);
    old.exec(`INSERT INTO webhook_attempts (id, message_id, attempt, status_code, latency_ms, created_at) VALUES ('att_1', 'msg_1', 1, 200, 12, 2)`);
    old.close();

    const db = openDatabase(`sqlite:${path}`);
    // Later migrations apply after it; this one comes first.
    expect((await db.migrate()).applied[0]).toBe("0003_attempts_by_message");
    const { webhookAttempts } = await import("../src/db/schema");
    expect(await db.read.select().from(webhookAttempts)).toEqual([
      { id: "att_1", messageId: "msg_1", attempt: 1, statusCode: 200, latencyMs: 12, responseSnippet: null, error: null, nextAttemptAt: null, createdAt: 2 },
    ]);
    await db.close();
    const after = new Database(path);
    const { sql } = after.query(`SELECT sql FROM sqlite_master WHERE name = 'webhook_attempts'`).get() as { sql: string };
    expect(sql).toContain("WITHOUT ROWID");
    expect(after.query(`SELECT name FROM sqlite_master WHERE name = 'webhook_attempts_message_idx'`).get()).toBe(null);
    after.close();
  });

  test("a rolled-back transaction leaves nothing behind", async () => {
    const db = openDatabase(`sqlite:${join(tempDir(), "v.db")}`);
    await db.migrate();
    const { accounts } = await import("../src/db/schema");
    await expect(
      db.tx(async (tx) => {
        await tx.insert(accounts).values({ id: "acct_x", createdAt: 1, updatedAt: 1 });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await db.read.select().from(accounts)).toEqual([]);
    db.close();
  });
});

describe("read cache", () => {
  test("holds a value until something commits, from this process or another", async () => {
    const path = join(tempDir(), "v.db");
    const db = openDatabase(`sqlite:${path}`);
    await db.migrate();
    const { accounts } = await import("../src/db/schema");
    const count = async () => (await db.read.select().from(accounts)).length;
    expect(await db.cached("n", count)).toBe(0);
    // Our own commit clears the cache at once (read-your-writes).
    await db.tx((tx) => tx.insert(accounts).values({ id: "acct_a", createdAt: 1, updatedAt: 1 }));
    expect(await db.cached("n", count)).toBe(1);
    // Another process's commit is seen from the next event-loop turn on.
    const other = new Database(path);
    other.run("INSERT INTO accounts (id, created_at, updated_at) VALUES ('acct_b', 1, 1)");
    other.close();
    await new Promise((r) => setImmediate(r));
    expect(await db.cached("n", count)).toBe(2);
    db.close();
  });

  test("a read that started before a commit does not store its older result", async () => {
    const db = openDatabase(`sqlite:${join(tempDir(), "v.db")}`);
    await db.migrate();
    const { accounts } = await import("../src/db/schema");
    let release!: () => void;
    const slow = db.cached("k", async () => {
      const n = (await db.read.select().from(accounts)).length;
      await new Promise<void>((r) => (release = r));
      return n;
    });
    await db.tx((tx) => tx.insert(accounts).values({ id: "acct_a", createdAt: 1, updatedAt: 1 }));
    release();
    expect(await slow).toBe(0);
    expect(await db.cached("k", async () => (await db.read.select().from(accounts)).length)).toBe(1);
    db.close();
  });
});

describe("group commit", () => {
  test("concurrent transactions share a commit, and one that throws rolls back alone", async () => {
    const db = openDatabase(`sqlite:${join(tempDir(), "v.db")}`);
    await db.migrate();
    const { accounts } = await import("../src/db/schema");
    const committed: string[] = [];
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        db.tx(async (tx) => {
          await tx.insert(accounts).values({ id: `acct_${i}`, createdAt: 1, updatedAt: 1 });
          db.afterCommit(() => committed.push(`acct_${i}`));
          if (i === 17) throw new Error("this one fails");
          return i;
        }),
      ),
    );
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
    const ids = (await db.read.select({ id: accounts.id }).from(accounts)).map((r) => r.id);
    expect(ids).toHaveLength(49);
    expect(ids).not.toContain("acct_17");
    expect(committed.sort()).toEqual(ids.sort());
    db.close();
  });

  test("a constraint violation inside one transaction leaves the others of its group intact", async () => {
    const db = openDatabase(`sqlite:${join(tempDir(), "v.db")}`);
    await db.migrate();
    const { accounts } = await import("../src/db/schema");
    const [a, dup, b] = await Promise.allSettled([
      db.tx((tx) => tx.insert(accounts).values({ id: "acct_a", createdAt: 1, updatedAt: 1 })),
      db.tx((tx) => tx.insert(accounts).values({ id: "acct_a", createdAt: 2, updatedAt: 2 })),
      db.tx((tx) => tx.insert(accounts).values({ id: "acct_b", createdAt: 1, updatedAt: 1 })),
    ]);
    expect([a.status, dup.status, b.status]).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((await db.read.select().from(accounts)).map((r) => r.createdAt)).toEqual([1, 1]);
    db.close();
  });
});

/** A stand-in for fdatasync that holds every flush until the test lets it go. */
function heldSync() {
  const held: { fd: number; done: (error: Error | null) => void }[] = [];
  const sync: SyncFile = (fd, done) => void held.push({ fd, done });
  return { sync, held, release: (error: Error | null = null) => held.shift()!.done(error) };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A migrated database whose WAL flushes wait for the test (the migration's own flush already let through). */
async function migratedWithHeldSync() {
  const flush = heldSync();
  const db = openDatabase(`sqlite:${join(tempDir(), "v.db")}`, { syncFile: flush.sync });
  const migrated = db.migrate();
  await tick();
  flush.release();
  await migrated;
  const { accounts } = await import("../src/db/schema");
  return { flush, db, accounts };
}

describe("durability", () => {
  test("a transaction resolves, and its afterCommit hooks run, only once the WAL is flushed", async () => {
    const { flush, db, accounts } = await migratedWithHeldSync();
    let resolved = false;
    let hooked = false;
    const done = db
      .tx(async (tx) => {
        await tx.insert(accounts).values({ id: "acct_1", createdAt: 1, updatedAt: 1 });
        db.afterCommit(() => (hooked = true));
      })
      .then(() => (resolved = true));
    await tick();
    // Committed (other connections see it) but not yet on disk: the caller has not been told.
    expect((await db.read.select().from(accounts)).map((r) => r.id)).toEqual(["acct_1"]);
    expect([resolved, hooked]).toEqual([false, false]);
    expect(flush.held).toHaveLength(1);
    flush.release();
    await done;
    expect([resolved, hooked]).toEqual([true, true]);
    await db.close();
  });

  test("a transaction marked durable: false resolves at commit, and close waits for its flush", async () => {
    const { flush, db, accounts } = await migratedWithHeldSync();
    await db.tx((tx) => tx.insert(accounts).values({ id: "acct_1", createdAt: 1, updatedAt: 1 }), { durable: false });
    let closed = false;
    const closing = db.close().then(() => (closed = true));
    await tick();
    expect(closed).toBe(false);
    flush.release();
    await closing;
    expect(closed).toBe(true);
  });

  test("a failed flush rejects the transactions waiting for it", async () => {
    const { flush, db, accounts } = await migratedWithHeldSync();
    const result = db.tx((tx) => tx.insert(accounts).values({ id: "acct_1", createdAt: 1, updatedAt: 1 }));
    await tick();
    flush.release(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
    await expect(result).rejects.toThrow(/committed, but writing it to disk failed: EIO/);
    await db.close();
  });

  test("one flush covers every commit made before it started; later ones wait for the next", async () => {
    const flush = heldSync();
    const file = join(tempDir(), "v.db-wal");
    writeFileSync(file, "x");
    const wal = new WalSync(file, flush.sync);
    const order: string[] = [];
    wal.after(() => order.push("a"));
    expect(flush.held).toHaveLength(1);
    wal.after(() => order.push("b"));
    wal.after(() => order.push("c"));
    expect(flush.held).toHaveLength(1);
    flush.release();
    expect(order).toEqual(["a"]);
    // b and c arrived while the first flush ran, so one more flush covers both of them.
    expect(flush.held).toHaveLength(1);
    let idle = false;
    const settled = wal.settled().then(() => (idle = true));
    flush.release();
    await settled;
    expect(order).toEqual(["a", "b", "c"]);
    expect(idle).toBe(true);
    wal.close();
  });

  test("commits nobody waits for share one flush when it falls due, and a flush started earlier covers them", async () => {
    const flush = heldSync();
    const file = join(tempDir(), "v.db-wal");
    writeFileSync(file, "x");
    const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
    const wal = new WalSync(file, flush.sync, (fn, ms) => {
      const timer = { fn, ms, cancelled: false };
      timers.push(timer);
      return () => (timer.cancelled = true);
    });
    wal.soon(100);
    wal.soon(100);
    wal.soon(100);
    // One flush is due, none runs yet.
    expect(timers.map((t) => t.ms)).toEqual([100]);
    expect(flush.held).toHaveLength(0);
    timers[0].fn();
    expect(flush.held).toHaveLength(1);
    flush.release();

    // A durable commit's flush starts before the lazy one falls due: it covers them both, and the lazy one is off.
    wal.soon(100);
    const done: string[] = [];
    wal.after(() => done.push("durable"));
    expect(timers[1].cancelled).toBe(true);
    flush.release();
    expect(done).toEqual(["durable"]);
    expect(flush.held).toHaveLength(0);

    // Shutting down flushes a due one at once.
    wal.soon(100);
    const settled = wal.settled();
    expect(timers[2].cancelled).toBe(true);
    expect(flush.held).toHaveLength(1);
    flush.release();
    await settled;
    wal.close();
  });
});
