// The SQLite `Db`: two connections, a reader for plain reads (WAL lets it see every committed write) and a writer used
// only inside `tx`. Transactions queue for the writer and run one after another (grouped into one
// BEGIN IMMEDIATE … COMMIT when they pile up), so concurrent requests never interleave statements inside one
// another's transactions, and other processes wait on the file lock.
import type { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { GroupWriter } from "./group-writer";
import { refuseNewerSchema, sqliteMigrations } from "./migrations";
import { ReadCache } from "./read-cache";
import * as schema from "./schema";
import { beginImmediate, DEFAULT_BUSY_TIMEOUT_MS, MIGRATION_LOCK_WAIT_MS, openSqlite } from "./sqlite-lock";
import type { Db, OpenOptions, Orm, TxOptions } from "./types";
import { sqlitePathFromUrl } from "./url";
import { WalSync } from "./wal-sync";

export function openSqliteDb(url: string, options: OpenOptions): Db {
  const path = sqlitePathFromUrl(url);
  const busyMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const writerClient = openSqlite(path, busyMs);
  // The writer waits for the lock in beginImmediate, between event-loop turns, never in SQLite's thread-blocking wait.
  writerClient.exec("PRAGMA busy_timeout = 0");
  const readerClient = path === ":memory:" ? writerClient : openSqlite(path, busyMs);
  const writer = drizzle({ client: writerClient, schema });
  const reader = drizzle({ client: readerClient, schema });
  let closed = false;
  const cache = new ReadCache(
    // data_version changes whenever another connection (our writer included) commits; ":memory:" has one connection.
    path === ":memory:" ? null : readerClient.prepare("PRAGMA data_version"),
  );
  const wal = new WalSync(path === ":memory:" ? null : `${path}-wal`, options.syncFile);
  const groupWriter = new GroupWriter(writerClient, writer, () => cache.invalidate(), wal, busyMs);

  return {
    dialect: "sqlite",
    schema,
    read: reader,
    tx<T>(fn: (tx: Orm) => Promise<T> | T, options: TxOptions = {}): Promise<T> {
      return groupWriter.submit<T>({ fn, durable: options.durable ?? true });
    },
    afterCommit(cb) {
      if (groupWriter.current) groupWriter.current.push(cb);
      else queueMicrotask(cb);
    },
    cached(key, compute) {
      return cache.get(key, compute);
    },
    async listen() {
      return async () => {};
    },
    async ping() {
      if (closed) return false;
      try {
        readerClient.query("SELECT 1").get();
        return true;
      } catch {
        return false;
      }
    },
    migrate() {
      return groupWriter.submit({ exclusive: async () => ({ applied: await applySqliteMigrations(writerClient) }) });
    },
    async close() {
      if (closed) return;
      closed = true;
      // Commits already acknowledged as visible (the job engine's) reach the disk before the file is let go.
      await wal.settled();
      wal.close();
      if (readerClient !== writerClient) readerClient.close();
      writerClient.close();
    },
  };
}

/** Applies pending migrations under BEGIN IMMEDIATE so two processes starting at once cannot both apply one. */
async function applySqliteMigrations(client: Database): Promise<string[]> {
  const applied: string[] = [];
  await beginImmediate(client, MIGRATION_LOCK_WAIT_MS);
  try {
    client.exec(
      `CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
    );
    const last = client.query(`SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1`).get() as
      | { created_at: number }
      | null;
    const lastWhen = last ? Number(last.created_at) : -1;
    const known = sqliteMigrations();
    refuseNewerSchema(lastWhen, known);
    for (const m of known) {
      if (m.when <= lastWhen) continue;
      for (const statement of m.statements) client.exec(statement);
      client.query(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)`).run(m.hash, m.when);
      applied.push(m.tag);
    }
    client.exec("COMMIT");
  } catch (e) {
    client.exec("ROLLBACK");
    throw e;
  }
  return applied;
}
