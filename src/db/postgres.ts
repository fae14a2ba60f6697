// The PostgreSQL `Db`: drizzle over Bun's built-in SQL client (a connection pool, named prepared statements), for
// running several vitrin instances against one database.
//
// Transactions run at SERIALIZABLE and are retried on serialization failures and deadlocks, which gives domain code
// the guarantees SQLite's single writer gives (a check-then-write such as the product limit or an idempotency key
// cannot be raced). That is why transaction callbacks must do no network I/O: they may run more than once.
import { AsyncLocalStorage } from "node:async_hooks";
import { SQL, type TransactionSQL } from "bun";
import { createTableRelationsHelpers, extractTablesRelationalConfig } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { BunSQLSession, BunSQLTransaction } from "drizzle-orm/bun-sql/session";
import { PgDialect } from "drizzle-orm/pg-core";
import { errors } from "../kernel";
import type { Db, Orm, Schema, TxOptions } from "./types";
import { postgresMigrations, refuseNewerSchema } from "./migrations";
import * as pgSchema from "./schema-pg";

/** Connections per instance by default. Transactions are short (no network I/O inside), so a few serve many requests. */
export const DEFAULT_POOL_SIZE = 10;
/**
 * Attempts of a transaction that keeps losing serialization conflicts before the caller gets a 503. Generous: a burst
 * of writes to one hot row (an account's balance) loses most rounds, and each retry is cheap next to a failed request.
 */
const MAX_TX_ATTEMPTS = 30;
/** Arbitrary but fixed: every instance must use the same key to take turns migrating. */
const MIGRATION_LOCK = 7_412_093_001;

/** The SQLSTATE of a PostgreSQL error, looking through drizzle's DrizzleQueryError wrapper. */
export function sqlState(e: unknown): string | undefined {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    const errno = (cur as { errno?: unknown }).errno;
    if (typeof errno === "string") return errno;
  }
  return undefined;
}

/** Lost a serialization conflict or a deadlock: running the whole transaction again may well succeed. */
function retryable(e: unknown): boolean {
  const state = sqlState(e);
  return state === "40001" || state === "40P01";
}

/** The Bun SQL client behind a handle from this module (the pool for `db.read`, the connection inside `db.tx`). */
export function pgClientOf(orm: Orm): SQL {
  return (orm as unknown as { session: { client: SQL } }).session.client;
}

const relational = extractTablesRelationalConfig(pgSchema, createTableRelationsHelpers);
const relationalSchema = { fullSchema: pgSchema, schema: relational.tables, tableNamesMap: relational.tableNamesMap };
const pgDialect = new PgDialect();

/** A drizzle handle over one transaction's connection; cheaper than drizzle's own transaction(), which adds a round trip. */
function transactionOrm(client: TransactionSQL): Orm {
  const session = new BunSQLSession(client, pgDialect, relationalSchema as never, {});
  return new BunSQLTransaction(pgDialect, session, relationalSchema as never) as unknown as Orm;
}

/**
 * The connection's application_name, so pg_stat_activity tells vitrin's connections from others'; a URL that names one
 * (`?application_name=vitrin-api`, say, to tell roles apart) keeps its own.
 */
function applicationName(url: string): Record<string, string> {
  try {
    if (new URL(url).searchParams.has("application_name")) return {};
  } catch {}
  return { application_name: "vitrin" };
}

export function openPostgres(url: string, poolSize = DEFAULT_POOL_SIZE): Db {
  const client = new SQL({ url, max: poolSize, idleTimeout: 60, prepare: true, connection: applicationName(url) });
  const read = drizzle({ client, schema: pgSchema }) as unknown as Orm;
  /** The afterCommit hooks of the transaction attempt the caller is running in. */
  const hooksOf = new AsyncLocalStorage<(() => void)[]>();
  let closed = false;

  async function attempt<T>(fn: (tx: Orm) => Promise<T> | T, level: string, hooks: (() => void)[]): Promise<T> {
    // Wrapped so Bun never treats an array the callback returns as queries to await.
    const out = await client.begin(`isolation level ${level}`, (tx) =>
      hooksOf.run(hooks, async () => ({ value: await fn(transactionOrm(tx)) })),
    );
    return out.value;
  }

  return {
    dialect: "postgres",
    schema: pgSchema as unknown as Schema,
    read,
    async tx<T>(fn: (tx: Orm) => Promise<T> | T, options: TxOptions = {}): Promise<T> {
      const level = options.isolation ?? "serializable";
      for (let n = 1; ; n++) {
        const hooks: (() => void)[] = [];
        try {
          const value = await attempt(fn, level, hooks);
          for (const h of hooks) h();
          return value;
        } catch (e) {
          if (!retryable(e)) throw e;
          if (n >= MAX_TX_ATTEMPTS) {
            throw Object.assign(errors.unavailable("The database is busy with conflicting writes; retry shortly."), { cause: e });
          }
          // Full jitter, growing to half a second, so transactions that collided do not collide again in lockstep.
          await Bun.sleep(Math.random() * Math.min(4 * 2 ** n, 500));
        }
      }
    },
    afterCommit(cb) {
      const hooks = hooksOf.getStore();
      if (hooks) hooks.push(cb);
      else queueMicrotask(cb);
    },
    // Commits from other instances cannot be seen cheaply, so nothing is kept: correctness over a cache hit.
    cached(_key, compute) {
      return compute();
    },
    async listen(channel, onPayload) {
      const subscription = await client.listen(channel, onPayload);
      return () => subscription.unlisten();
    },
    async ping() {
      if (closed) return false;
      try {
        await client`SELECT 1`;
        return true;
      } catch {
        return false;
      }
    },
    async migrate() {
      return { applied: await applyPostgresMigrations(client) };
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close({ timeout: 5 });
    },
  };
}

/**
 * Applies pending migrations on one connection holding a session advisory lock, so instances starting together take
 * turns and each migration is applied once. Each migration commits on its own (PostgreSQL DDL is transactional).
 */
async function applyPostgresMigrations(client: SQL): Promise<string[]> {
  const conn = await client.reserve();
  const applied: string[] = [];
  try {
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      await conn.unsafe(
        `CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id serial PRIMARY KEY, hash text NOT NULL, created_at bigint)`,
      );
      const [last] = await conn.unsafe(`SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1`);
      const lastWhen = last ? Number(last.created_at) : -1;
      const known = postgresMigrations();
      refuseNewerSchema(lastWhen, known);
      for (const m of known) {
        if (m.when <= lastWhen) continue;
        await conn.begin(async (tx) => {
          for (const statement of m.statements) await tx.unsafe(statement);
          await tx.unsafe(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ($1, $2)`, [m.hash, m.when]);
        });
        applied.push(m.tag);
      }
    } finally {
      await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
    }
  } finally {
    await conn.release();
  }
  return applied;
}
