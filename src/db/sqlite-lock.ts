// Opening SQLite connections, and taking the write lock without freezing the process: SQLite's own busy handler
// sleeps the whole thread (every request with it), so the writer polls for the lock between event-loop turns instead
// and gives up after a short wait, which the HTTP layer answers with 503 and Retry-After rather than a 500 after 5 s.
import { Database } from "bun:sqlite";
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "../config";

/** How long a write waits for another process's write lock by default (VITRIN_DATABASE_BUSY_TIMEOUT_MS). */
export const DEFAULT_BUSY_TIMEOUT_MS = 1000;
/** Migrations wait longer: instances starting together take turns, and a start is no request anyone waits on. */
export const MIGRATION_LOCK_WAIT_MS = 30_000;
/** Longest pause between two tries for the lock; short, so a lock released is taken again quickly. */
const MAX_POLL_MS = 25;

/**
 * Opens a connection in WAL mode. `busyTimeoutMs` is SQLite's own (blocking) wait, which only the reader keeps: in WAL
 * mode readers never wait on a writer, only on rare moments such as WAL recovery. The writer sets it to 0 and waits in
 * beginImmediate.
 */
export function openSqlite(path: string, busyTimeoutMs: number): Database {
  let client: Database;
  try {
    if (path !== ":memory:") {
      // The database holds token hashes and webhook signing secrets: a new one (and the folder made for it) is the
      // service user's alone, as backups are. SQLite gives the -wal and -shm files the database file's mode.
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
    }
    client = new Database(path, { create: true, strict: true });
  } catch (e) {
    // The commonest start-up mistake (a data dir this user cannot write, or a file in its place): one line, exit 2.
    throw new ConfigError(
      `VITRIN_DATA_DIR: the database ${path} cannot be opened (${(e as Error).message}); set VITRIN_DATA_DIR (or VITRIN_DATABASE_URL) to a folder this user can write`,
    );
  }
  client.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  client.exec("PRAGMA journal_mode = WAL");
  client.exec("PRAGMA foreign_keys = ON");
  // NORMAL: SQLite itself syncs the WAL only at checkpoints. The writer makes each commit durable with an fdatasync of
  // the WAL on a pool thread (WalSync) before anyone is told of it, so a commit acknowledged survives a power cut, and
  // the event loop is not held up for the disk meanwhile.
  client.exec("PRAGMA synchronous = NORMAL");
  return client;
}

/** SQLITE_BUSY or SQLITE_LOCKED (extended codes included), here or in a wrapper's cause (drizzle wraps driver errors). */
export function isSqliteBusy(error: unknown): boolean {
  for (let cur = error, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) return true;
  }
  return false;
}

/**
 * BEGIN IMMEDIATE, retried between event-loop turns (1, 2, 4 … 25 ms apart) while another connection holds the write
 * lock, for at most `waitMs`; then the SQLITE_BUSY error is thrown. Other requests run meanwhile.
 */
export async function beginImmediate(client: Database, waitMs: number): Promise<void> {
  const deadline = performance.now() + waitMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
    try {
      client.exec("BEGIN IMMEDIATE");
      return;
    } catch (error) {
      const left = deadline - performance.now();
      if (!isSqliteBusy(error) || left <= 0) throw error;
      await Bun.sleep(Math.min(pause, left));
    }
  }
}
