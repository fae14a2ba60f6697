// The data layer's face: opens the database, applies migrations, and hands out read and transaction handles.
//
// SQLite runs with two connections: a reader for plain reads (WAL lets it see every committed write) and a
// writer used only inside `tx`. Transactions queue for the writer and run one after another (grouped into one
// BEGIN IMMEDIATE … COMMIT when they pile up), so concurrent requests never interleave statements inside one
// another's transactions, and other processes wait on the file lock.
// Route and domain code only ever sees `Db`; a `postgres://` URL selects the PostgreSQL implementation (postgres.ts).
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema";
import { sqliteMigrations } from "./migrations";
import { openPostgres } from "./postgres";

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
};

export type Db = {
  readonly dialect: Dialect;
  /** The dialect's tables; domain code takes its tables from here, never from schema.ts directly. */
  readonly schema: Schema;
  /** Reads outside a transaction. */
  readonly read: Orm;
  /**
   * Runs `fn` in one transaction; a throw rolls everything back. Do no network I/O inside: on PostgreSQL `fn` may run
   * again when the transaction loses a serialization conflict.
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

function openSqlite(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const client = new Database(path, { create: true, strict: true });
  client.exec("PRAGMA journal_mode = WAL");
  client.exec("PRAGMA busy_timeout = 5000");
  client.exec("PRAGMA foreign_keys = ON");
  // FULL: a committed transaction (and the jobs it enqueued) survives a power cut, not only a crash.
  client.exec("PRAGMA synchronous = FULL");
  return client;
}

type Work = {
  /** Runs inside the group's transaction, under its own savepoint. */
  fn?: (tx: Orm) => unknown;
  /** Runs alone, outside any transaction (migrations manage their own). */
  exclusive?: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
};

/**
 * The single SQLite writer, with group commit: transactions that queue up while one group runs are run together in
 * the next BEGIN IMMEDIATE … COMMIT, each under its own savepoint, so one fsync covers them all. A callback that throws
 * rolls back only its savepoint. Callers see ordinary one-transaction semantics; callbacks must not nest `tx`.
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
            work.resolve(await work.exclusive!());
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
      client.exec("BEGIN IMMEDIATE");
    } catch (e) {
      for (const w of group) w.reject(e);
      return;
    }
    const outcomes: ({ ok: true; value: unknown; hooks: (() => void)[] } | { ok: false; error: unknown })[] = [];
    for (const work of group) {
      const hooks: (() => void)[] = [];
      this.current = hooks;
      client.exec("SAVEPOINT work");
      try {
        const value = await work.fn!(this.orm);
        client.exec("RELEASE work");
        outcomes.push({ ok: true, value, hooks });
      } catch (error) {
        this.current = null;
        if (!client.inTransaction) {
          // SQLite rolled the whole transaction back (I/O error, disk full): nothing in this group was kept.
          for (const w of group) w.reject(error);
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
    group.forEach((work, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) {
        for (const h of outcome.hooks) h();
        work.resolve(outcome.value);
      } else {
        work.reject(outcome.error);
      }
    });
  }
}

export function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

export function openDatabase(url: string): Db {
  if (isPostgresUrl(url)) return openPostgres(url);
  return openSqliteDb(url);
}

function openSqliteDb(url: string): Db {
  const path = sqlitePathFromUrl(url);
  const writerClient = openSqlite(path);
  const readerClient = path === ":memory:" ? writerClient : openSqlite(path);
  const writer = drizzle({ client: writerClient, schema });
  const reader = drizzle({ client: readerClient, schema });
  let closed = false;
  const cache = new ReadCache(
    // data_version changes whenever another connection (our writer included) commits; ":memory:" has one connection.
    path === ":memory:" ? null : readerClient.prepare("PRAGMA data_version"),
  );
  const groupWriter = new GroupWriter(writerClient, writer, () => cache.invalidate());

  return {
    dialect: "sqlite",
    schema,
    read: reader,
    tx<T>(fn: (tx: Orm) => Promise<T> | T): Promise<T> {
      return groupWriter.submit<T>({ fn });
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
      return groupWriter.submit({ exclusive: () => ({ applied: applySqliteMigrations(writerClient) }) });
    },
    async close() {
      if (closed) return;
      closed = true;
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
function applySqliteMigrations(client: Database): string[] {
  client.exec(
    `CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
  );
  const applied: string[] = [];
  client.exec("BEGIN IMMEDIATE");
  try {
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
