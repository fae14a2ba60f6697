// The data layer's contracts: the `Db` handle domain code sees, its transaction options and the open options. Types
// only, so every file of src/db can name them without importing the face (which imports those files back).
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type * as schema from "./schema";
import type { SyncFile } from "./wal-sync";

/**
 * The query handle domain code sees. It is typed as the SQLite driver's; on PostgreSQL the handle is drizzle's
 * bun-sql one, cast in postgres.ts. Code written against it must stick to what both offer: awaited builders and
 * prepared statements' `execute` (not SQLite's synchronous `run`/`all`/`get`).
 */
export type Orm = BunSQLiteDatabase<typeof schema>;
/** The tables, typed as schema.ts's; on PostgreSQL they are schema-pg.ts's twins with the same keys. */
export type Schema = typeof schema;
export type Dialect = "sqlite" | "postgres";

export type TxOptions = {
  /**
   * PostgreSQL: "serializable" (the default) gives what SQLite's single writer gives (no write skew, so checks such as
   * the product limit hold), retrying on serialization failures. The job engine, whose rows are fenced and claimed
   * with SKIP LOCKED, asks for "read committed". SQLite ignores it: every transaction there is serial.
   */
  isolation?: "serializable" | "read committed";
  /**
   * SQLite: false resolves as soon as the transaction has committed (other connections see it), before its WAL frames
   * reach the disk; they follow with the next flush, in commit order, at the latest LAZY_FLUSH_MS later. Only for
   * writes whose loss in a power cut costs nothing but a repeat, such as the job engine's bookkeeping: at-least-once
   * delivery already re-runs an attempt whose outcome was not recorded. Default true: the promise resolves, and afterCommit hooks run, once the commit is durable.
   * PostgreSQL ignores it.
   */
  durable?: boolean;
  /**
   * false: committing this transaction does not yet carry out the request it runs for (it only prepares work that a
   * retry may safely prepare again, such as a pending top-up nobody has been sent to pay), so an Idempotency-Key held
   * by that request is not marked "carried out" by it (see http/idempotency-writes.ts). Default true.
   */
  carriesOut?: boolean;
};

export type Db = {
  readonly dialect: Dialect;
  /** The dialect's tables; domain code takes its tables from here, never from schema.ts directly. */
  readonly schema: Schema;
  /** Reads outside a transaction. */
  readonly read: Orm;
  /**
   * Runs `fn` in one transaction; a throw rolls everything back. Do no network I/O inside: on PostgreSQL `fn` may run
   * again when the transaction loses a serialization conflict. Resolves once the commit is durable (see TxOptions).
   */
  tx<T>(fn: (tx: Orm) => Promise<T> | T, options?: TxOptions): Promise<T>;
  /** Runs `cb` once the current transaction commits (at once when none is open); dropped on rollback. */
  afterCommit(cb: () => void): void;
  /**
   * Memoises a read until anything commits to the database (from this process or another): hot reads such as
   * token lookups and list polling then cost a map lookup. Values must be treated as immutable. On PostgreSQL, where
   * other instances' commits cannot be seen cheaply, it simply computes.
   */
  cached<T>(key: string, compute: () => Promise<T> | T): Promise<T> | T;
  /**
   * Calls `onPayload` for every notification on `channel`, from this instance or another (PostgreSQL LISTEN/NOTIFY).
   * SQLite serves one host, where in-process wake-ups already cover this, so there it never calls back.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** Cheap liveness probe for /readyz. */
  ping(): Promise<boolean>;
  migrate(): Promise<{ applied: string[] }>;
  close(): Promise<void>;
};

export type OpenOptions = {
  /** SQLite: how the WAL is flushed to disk (tests hold it back to watch what waits for it). Default fdatasync. */
  syncFile?: SyncFile;
  /** PostgreSQL: connections this process may open (VITRIN_DATABASE_POOL). Default 10. */
  poolSize?: number;
  /** SQLite: how long a write waits for another process's write lock (VITRIN_DATABASE_BUSY_TIMEOUT_MS). Default 1 s. */
  busyTimeoutMs?: number;
};
