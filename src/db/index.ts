// The data layer's face: opens the database, applies migrations, and hands out read and transaction handles.
//
// SQLite runs with two connections: a reader for plain reads (WAL lets it see every committed write) and a
// writer used only inside `tx`. Transactions queue for the writer and run one after another (grouped into one
// BEGIN IMMEDIATE … COMMIT when they pile up), so concurrent requests never interleave statements inside one
// another's transactions, and other processes wait on the file lock.
// Route and domain code only ever sees `Db`; a `postgres://` URL selects the PostgreSQL implementation (postgres.ts).
import type { Database } from "bun:sqlite";
import { closeSync, fdatasync, openSync } from "node:fs";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema";
import { sqliteMigrations } from "./migrations";
import { openPostgres } from "./postgres";
import { beginImmediate, DEFAULT_BUSY_TIMEOUT_MS, MIGRATION_LOCK_WAIT_MS, openSqlite } from "./sqlite-lock";
import type { SetTimer } from "../kernel";
export type { SetTimer };

export { schema };
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

export function sqlitePathFromUrl(url: string): string {
  if (!url.startsWith("sqlite:")) throw new Error(`not a sqlite URL: ${url}`);
  const path = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
  return path;
}


/** Flushes a file's data to disk and calls back (fdatasync's shape). */
export type SyncFile = (fd: number, done: (error: Error | null) => void) => void;

/**
 * Makes commits durable off the event loop: one fdatasync of the WAL file covers every commit made before it started,
 * so a burst of commits shares a sync. WAL frames are appended in commit order and recovery keeps only a whole
 * prefix of them, so a later commit can never survive a power cut that an earlier one did not.
 */
export class WalSync {
  private fd: number | null = null;
  private running = false;
  /** Cancels the flush due for commits nobody waits for (soon()), if one is. */
  private lazy: (() => void) | null = null;
  /** Callbacks of commits made since the running sync started (those need the next one). */
  private waiting: ((error: Error | null) => void)[] = [];
  private idle: (() => void)[] = [];

  constructor(
    private readonly walPath: string | null,
    private readonly sync: SyncFile = fdatasync,
    private readonly setTimer: SetTimer = (fn, ms) => {
      const t = setTimeout(fn, ms);
      return () => clearTimeout(t);
    },
  ) {}

  /** Calls `done` once every commit made so far is on disk (at once for an in-memory database). */
  after(done: (error: Error | null) => void): void {
    if (!this.walPath) {
      queueMicrotask(() => done(null));
      return;
    }
    this.waiting.push(done);
    if (!this.running) this.start();
  }

  /** after() as a promise: resolves once every commit made so far is on disk, rejects if the flush failed. */
  flushed(): Promise<void> {
    return new Promise((resolve, reject) => this.after((error) => (error ? reject(error) : resolve())));
  }

  /**
   * Flushes what is committed now within `ms`, unless a flush that covers it starts first: for commits nobody waits
   * for, so a stream of them costs a sync every `ms` rather than one after another.
   */
  soon(ms: number): void {
    if (!this.walPath || this.lazy) return;
    this.lazy = this.setTimer(() => {
      this.lazy = null;
      this.after(() => {});
    }, ms);
  }

  /** Resolves when no sync is running, waiting or due (a due one starts now). */
  settled(): Promise<void> {
    if (this.lazy) {
      this.lazy();
      this.lazy = null;
      this.after(() => {});
    }
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  close(): void {
    this.lazy?.();
    this.lazy = null;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private start(): void {
    // This flush covers every commit made so far, those a lazy one was due for too.
    this.lazy?.();
    this.lazy = null;
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    const finish = (error: Error | null) => {
      for (const done of batch) done(error);
      if (this.waiting.length > 0) return this.start();
      this.running = false;
      for (const resolve of this.idle.splice(0)) resolve();
    };
    try {
      // The WAL file stays in place while our connections are open; SQLite truncates or rewrites it, never replaces it.
      this.fd ??= openSync(this.walPath!, "r");
    } catch (e) {
      queueMicrotask(() => finish(e as Error));
      return;
    }
    this.sync(this.fd, (error) => finish(error));
  }
}

/** How long a commit made with `durable: false` may wait for the flush that puts it on disk. */
export const LAZY_FLUSH_MS = 100;

type Work = {
  /** Runs inside the group's transaction, under its own savepoint. */
  fn?: (tx: Orm) => unknown;
  /** Resolve only once the commit is on disk (TxOptions.durable). */
  durable?: boolean;
  /** Runs alone, outside any transaction (migrations manage their own). */
  exclusive?: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
};

/**
 * The single SQLite writer, with group commit: transactions that queue up while one group runs are run together in
 * the next BEGIN IMMEDIATE … COMMIT, each under its own savepoint (a lone one runs without), so one fsync covers them
 * all. A callback that throws rolls back only its own writes. Callers see ordinary one-transaction semantics;
 * callbacks must not nest `tx`.
 */
class GroupWriter {
  private queue: Work[] = [];
  private running = false;
  /** Hooks of the callback now running; afterCommit() adds to it. */
  current: (() => void)[] | null = null;

  constructor(
    private readonly client: Database,
    private readonly orm: Orm,
    private readonly onCommit: () => void,
    private readonly wal: WalSync,
    /** How long a group waits for another process's write lock before its work fails with SQLITE_BUSY. */
    private readonly lockWaitMs: number,
    private readonly maxGroup = 512,
  ) {}

  submit<T>(work: Omit<Work, "resolve" | "reject">): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ ...work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain() {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        if (this.queue[0].exclusive) {
          const work = this.queue.shift()!;
          try {
            const value = await work.exclusive!();
            await this.wal.flushed();
            work.resolve(value);
          } catch (e) {
            work.reject(e);
          }
          continue;
        }
        let n = 0;
        while (n < this.queue.length && n < this.maxGroup && !this.queue[n].exclusive) n++;
        await this.runGroup(this.queue.splice(0, n));
      }
    } finally {
      this.running = false;
    }
  }

  private async runGroup(group: Work[]) {
    const { client } = this;
    try {
      await beginImmediate(client, this.lockWaitMs);
    } catch (e) {
      for (const w of group) w.reject(e);
      return;
    }
    const outcomes: ({ ok: true; value: unknown; hooks: (() => void)[] } | { ok: false; error: unknown })[] = [];
    // A group of one needs no savepoint (its failure rolls the whole transaction back), and a savepoint is not free: it
    // copies every page it first touches into the statement journal.
    const alone = group.length === 1;
    for (const work of group) {
      const hooks: (() => void)[] = [];
      this.current = hooks;
      if (!alone) client.exec("SAVEPOINT work");
      try {
        const value = await work.fn!(this.orm);
        if (!alone) client.exec("RELEASE work");
        outcomes.push({ ok: true, value, hooks });
      } catch (error) {
        this.current = null;
        if (!client.inTransaction) {
          // SQLite rolled the whole transaction back (I/O error, disk full): nothing in this group was kept.
          for (const w of group) w.reject(error);
          return;
        }
        if (alone) {
          client.exec("ROLLBACK");
          work.reject(error);
          return;
        }
        client.exec("ROLLBACK TO work");
        client.exec("RELEASE work");
        outcomes.push({ ok: false, error });
      }
      this.current = null;
    }
    try {
      client.exec("COMMIT");
    } catch (e) {
      if (client.inTransaction) client.exec("ROLLBACK");
      for (const w of group) w.reject(e);
      return;
    }
    this.onCommit();
    const durable: { work: Work; value: unknown; hooks: (() => void)[] }[] = [];
    group.forEach((work, i) => {
      const outcome = outcomes[i];
      if (!outcome.ok) work.reject(outcome.error);
      else if (work.durable === false) {
        for (const h of outcome.hooks) h();
        work.resolve(outcome.value);
      } else durable.push({ work, value: outcome.value, hooks: outcome.hooks });
    });
    // Commits nobody waits for are flushed too, within LAZY_FLUSH_MS, not at some later commit; a group of only those
    // does not start a sync of its own, or a stream of them would keep a pool thread syncing without pause.
    if (durable.length === 0) {
      this.wal.soon(LAZY_FLUSH_MS);
      return;
    }
    this.wal.after((error) => {
      for (const { work, value, hooks } of durable) {
        if (error) {
          work.reject(new Error(`the transaction committed, but writing it to disk failed: ${error.message}`, { cause: error }));
          continue;
        }
        for (const h of hooks) h();
        work.resolve(value);
      }
    });
  }
}

export function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

export type OpenOptions = {
  /** SQLite: how the WAL is flushed to disk (tests hold it back to watch what waits for it). Default fdatasync. */
  syncFile?: SyncFile;
  /** PostgreSQL: connections this process may open (VITRIN_DATABASE_POOL). Default 10. */
  poolSize?: number;
  /** SQLite: how long a write waits for another process's write lock (VITRIN_DATABASE_BUSY_TIMEOUT_MS). Default 1 s. */
  busyTimeoutMs?: number;
};

export function openDatabase(url: string, options: OpenOptions = {}): Db {
  if (isPostgresUrl(url)) return openPostgres(url, options.poolSize);
  return openSqliteDb(url, options);
}

function openSqliteDb(url: string, options: OpenOptions): Db {
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

/**
 * Read results keyed by the reader connection's data_version, which moves whenever another connection (our own
 * writer or another process) commits. Reading it costs a WAL check, so it is read once per event-loop turn;
 * our own commits clear the cache at once, so a client always reads its own writes.
 */
class ReadCache {
  private version = -1;
  /** Moves on every clear, so a read that started before a commit cannot store its older result after it. */
  private generation = 0;
  private checked = false;
  private entries = new Map<string, unknown>();
  private readonly expire = () => {
    this.checked = false;
  };
  constructor(
    private readonly versionQuery: { values(): unknown[][] } | null,
    private readonly maxEntries = 10_000,
  ) {}

  invalidate() {
    this.entries.clear();
    this.generation++;
    this.checked = false;
  }

  get<T>(key: string, compute: () => Promise<T> | T): Promise<T> | T {
    if (!this.versionQuery) return compute();
    if (!this.checked) {
      const version = this.versionQuery.values()[0][0] as number;
      if (version !== this.version) {
        this.entries.clear();
        this.generation++;
        this.version = version;
      }
      this.checked = true;
      setImmediate(this.expire);
    }
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const generation = this.generation;
    const value = compute();
    // A result computed now is at least as new as the current generation, so storing it there is never stale. The
    // promise itself is kept while it runs, so a burst of misses for one key shares one read.
    if (value instanceof Promise) {
      const settled = value.then(
        (v) => {
          if (this.generation === generation && this.entries.get(key) === settled) this.store(key, v);
          return v;
        },
        (e) => {
          if (this.entries.get(key) === settled) this.entries.delete(key);
          throw e;
        },
      );
      this.store(key, settled);
      return settled;
    }
    this.store(key, value);
    return value;
  }

  private store(key: string, value: unknown) {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }
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
    for (const m of sqliteMigrations()) {
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
