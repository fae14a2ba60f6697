// The SQLite JobStore: the only file with dialect-specific job SQL (claims, fenced batch updates, upsert-style dedupe).
//
// SQLite has one writer at a time (db.tx runs BEGIN IMMEDIATE), so a claim needs no row locks: its reads and the
// UPDATE … RETURNING * that leases what they picked run in one write transaction, atomic against every other process.
// A PostgreSQL store keeps the same shape and adds FOR UPDATE SKIP LOCKED to the candidate select so concurrent
// claimers pass each other instead of queueing.
//
// Every statement has a fixed text (rows travel as one JSON parameter) and is compiled once per connection: the
// scheduler runs these hundreds of times a second, and compiling them anew each time cost more than running them.
import type { SQLQueryBindings, Statement } from "bun:sqlite";
import { compiledStatement, sqliteClientOf } from "../../db";
import {
  splitDebounced,
  TransactionLost,
  type ClaimRequest,
  type Executor,
  type JobFilter,
  type JobRecord,
  type JobStore,
  type LeaseRenewal,
  type NewJob,
  type RescuedJob,
  type Settlement,
  type StatsRows,
} from "./contract";
import { compareClaimOrder, debouncedParams, dedupeResults, insertRow, settlementRows, skippedKeys, toRecord, type Row } from "./rows";

/** A statement text and its parameters, ready for `Statement.all`. */
export type Query = { text: string; params: SQLQueryBindings[] };

function statement(ex: Executor, text: string): Statement {
  return compiledStatement(sqliteClientOf(ex), text);
}

function all<T>(ex: Executor, q: Query): T[] {
  return statement(ex, q.text).all(...q.params) as T[];
}

/** Many rows travel as one JSON parameter: one short statement text (compiled once), no per-row bind overhead. */
function rowsJson(rows: unknown[][]): string {
  return JSON.stringify(rows);
}

// A claim is a few statements per kind, inside the caller's write transaction (SQLite has one writer, so nothing can
// change between them): running jobs per concurrency key (jobs_running_key_idx); the priorities with claimable jobs;
// per priority, highest first, due jobs in claim order, walking jobs_ready_idx (kind, priority DESC, run_at, id; it
// also holds the key, so the walk reads no table row) and skipping keys already at their limit, up to a window a
// little wider than the claim; then the lease on the ones picked. Which candidates fit under their key's limit is
// decided in between, in JavaScript: as one statement (window function, sorts, a join on the counts) the same choice
// cost three times as much. A key with a deep backlog can thin one round out, but once at its limit it is skipped outright by the next.
// Skipping is not free: a full key's due jobs ahead of the others are walked past, one index entry each, every round
// (0.1–0.2 µs an entry), so a backlog of 100,000 behind one slow account adds 10–20 ms to each claim of that kind.
const BUSY = `SELECT concurrency_key AS key, count(*) AS n FROM jobs
  WHERE kind = ?1 AND status = 'running' AND concurrency_key IS NOT NULL
  GROUP BY concurrency_key`;
// The priorities among claimable jobs, highest first, one index seek each (a loose scan of jobs_ready_idx). ?1 kind.
const PRIORITIES = `WITH RECURSIVE p(v) AS (
    SELECT (SELECT priority FROM jobs WHERE kind = ?1 AND status IN ('queued', 'failed') ORDER BY priority DESC LIMIT 1)
    UNION ALL
    SELECT (SELECT priority FROM jobs WHERE kind = ?1 AND status IN ('queued', 'failed') AND priority < p.v
      ORDER BY priority DESC LIMIT 1) FROM p
    WHERE p.v IS NOT NULL
  ) SELECT v FROM p WHERE v IS NOT NULL`;
// Due jobs of one priority in claim order: a range of jobs_ready_idx that ends at the first job not yet due, so jobs
// scheduled for later (retries waiting hours) are never walked. Across priorities in one statement (ORDER BY
// priority DESC, run_at) the walk had to filter out every scheduled job behind the due ones: ~17 ms a claim with
// 100,000 retries waiting, against ~0.2 ms so. ?1 kind, ?2 now, ?3 keys at their limit (JSON array), ?4 window,
// ?5 priority.
const CANDIDATES = `SELECT id, concurrency_key AS key FROM jobs
  WHERE kind = ?1 AND priority = ?5 AND status IN ('queued', 'failed') AND run_at <= ?2
    AND (concurrency_key IS NULL OR concurrency_key NOT IN (SELECT value FROM json_each(?3)))
  ORDER BY run_at, id LIMIT ?4`;
// +status: keeps the planner on the primary key for `id IN (…)` instead of scanning every queued row by status.
// A claimed job gives up its debounce key: what is enqueued from now on needs a run after this one.
const LEASE = `UPDATE jobs SET status = 'running', lease_owner = ?3, lease_expires_at = ?2 + ?4, heartbeat_at = ?2,
    started_at = ?2, updated_at = ?2, attempts = attempts + 1, debounce_key = NULL
  WHERE id IN (SELECT value FROM json_each(?1)) AND +status IN ('queued', 'failed')
  RETURNING *`;

/** Runs one statement: the store on a drizzle handle's connection, bench/jobs.ts on its bare one. */
export type Runner = <T>(q: Query) => T[];

/** One kind's claim (see BUSY, CANDIDATES, LEASE); the caller must hold the write lock throughout. */
export function claimKind(run: Runner, owner: string, now: number, request: ClaimRequest): Row[] {
  const busy = new Map<string, number>();
  const full: string[] = [];
  for (const b of run<{ key: string; n: number }>({ text: BUSY, params: [request.kind] })) {
    busy.set(b.key, b.n);
    if (b.n >= request.keyLimit) full.push(b.key);
  }
  const ids: string[] = [];
  const fullKeys = JSON.stringify(full);
  for (const { v: priority } of run<{ v: number }>({ text: PRIORITIES, params: [request.kind] })) {
    const window = request.limit - ids.length + 64;
    const candidates = run<{ id: string; key: string | null }>({ text: CANDIDATES, params: [request.kind, now, fullKeys, window, priority] });
    for (const c of candidates) {
      if (ids.length >= request.limit) break;
      if (c.key !== null) {
        const n = busy.get(c.key) ?? 0;
        if (n >= request.keyLimit) continue;
        busy.set(c.key, n + 1);
      }
      ids.push(c.id);
    }
    if (ids.length >= request.limit) break;
  }
  if (ids.length === 0) return [];
  return run<Row>({ text: LEASE, params: [JSON.stringify(ids), now, owner, request.leaseMs] });
}

// WHERE true: without it SQLite would read ON CONFLICT as part of the SELECT's join syntax.
const INSERT = `INSERT INTO jobs (id, kind, payload, status, priority, run_at, attempts, max_attempts, dedupe_key, concurrency_key, created_at, updated_at)
  SELECT value->>0, value->>1, value->>2, 'queued', value->>3, value->>4, 0, value->>5, value->>6, value->>7, value->>8, value->>8
  FROM json_each(?) WHERE true
  ON CONFLICT DO NOTHING RETURNING id`;

// One row: the queued job holding the debounce key absorbs it and becomes due at the earlier time.
const INSERT_DEBOUNCED = `INSERT INTO jobs (id, kind, payload, status, priority, run_at, attempts, max_attempts, debounce_key, concurrency_key, created_at, updated_at)
  VALUES (?1, ?2, ?3, 'queued', ?4, ?5, 0, ?6, ?7, ?8, ?9, ?9)
  ON CONFLICT (debounce_key) WHERE debounce_key IS NOT NULL
  DO UPDATE SET run_at = min(run_at, excluded.run_at), updated_at = excluded.updated_at
  RETURNING id`;

const LIVE_DEDUPE = `SELECT id, dedupe_key FROM jobs WHERE dedupe_key IN (SELECT value FROM json_each(?))
  AND dedupe_key IS NOT NULL AND status IN ('queued', 'running', 'failed')`;

// Each settlement is fenced: the row must still be this attempt, running, and leased to us. ?1 rows, ?2 now, ?3 owner.
const FENCE = `jobs.id = d.value->>0 AND jobs.attempts = d.value->>1 AND +jobs.status = 'running' AND +jobs.lease_owner = ?3`;
const SUCCEED = `UPDATE jobs SET status = 'succeeded', finished_at = ?2, updated_at = ?2, lease_owner = NULL, lease_expires_at = NULL
  FROM json_each(?1) AS d WHERE ${FENCE} RETURNING jobs.id`;
const RETRY = `UPDATE jobs SET status = 'failed', run_at = d.value->>2, last_error = d.value->>3,
    updated_at = ?2, lease_owner = NULL, lease_expires_at = NULL
  FROM json_each(?1) AS d WHERE ${FENCE} RETURNING jobs.id`;
const DEAD = `UPDATE jobs SET status = 'dead', last_error = d.value->>2, finished_at = ?2,
    updated_at = ?2, lease_owner = NULL, lease_expires_at = NULL
  FROM json_each(?1) AS d WHERE ${FENCE} RETURNING jobs.id`;
const RELEASE = `UPDATE jobs SET status = 'queued', attempts = attempts - 1,
    updated_at = ?2, lease_owner = NULL, lease_expires_at = NULL
  FROM json_each(?1) AS d WHERE ${FENCE} RETURNING jobs.id`;
const RENEW = `UPDATE jobs SET lease_expires_at = d.value->>2, heartbeat_at = ?2, updated_at = ?2
  FROM json_each(?1) AS d WHERE ${FENCE} RETURNING jobs.id`;

// SET expressions all read the row as it was, so last_error can still name the owner being cleared.
const RESCUE = `UPDATE jobs SET
    status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
    finished_at = CASE WHEN attempts >= max_attempts THEN ?1 ELSE NULL END,
    last_error = 'lease expired: worker ' || coalesce(lease_owner, '?') || ' stopped heartbeating during attempt ' || attempts,
    lease_owner = NULL, lease_expires_at = NULL, updated_at = ?1
  WHERE status = 'running' AND lease_expires_at < ?1
  RETURNING id, kind, status, attempts, last_error AS lastError, payload`;

const RUNNING_OWNERS = `SELECT DISTINCT lease_owner AS owner FROM jobs WHERE status = 'running' AND lease_owner IS NOT NULL`;

const END_LEASES = `UPDATE jobs SET lease_expires_at = ?2 - 1
  WHERE status = 'running' AND lease_owner IN (SELECT value FROM json_each(?1)) AND lease_expires_at >= ?2 RETURNING id`;

const PRUNE = `DELETE FROM jobs WHERE id IN (
    SELECT id FROM jobs WHERE finished_at < ?1 AND status = ?2 LIMIT ?3
  ) RETURNING id`;

const REDRIVE = `UPDATE jobs SET status = 'queued', attempts = 0, run_at = ?2, finished_at = NULL,
    lease_owner = NULL, lease_expires_at = NULL, updated_at = ?2
  WHERE id = ?1 AND status = 'dead' RETURNING id`;

/** The hot statements (and claimKind), exposed so bench/jobs.ts can time the bare SQL against the engine with the very same text. */
export const sqliteStatements = {
  insert(jobs: NewJob[]): Query {
    return { text: INSERT, params: [rowsJson(jobs.map(insertRow))] };
  },

  succeed(owner: string, now: number, done: { id: string; attempt: number }[]): Query {
    return { text: SUCCEED, params: [rowsJson(done.map((d) => [d.id, d.attempt])), now, owner] };
  },
};

export class SqliteJobStore implements JobStore {
  // One host: in-process enqueues already wake the engine.
  readonly wakeChannel = null;

  async insert(tx: Executor, jobs: NewJob[]): Promise<{ id: string; deduped: boolean }[]> {
    if (jobs.length === 0) return [];
    if (jobs.some((j) => j.debounceKey !== null)) {
      return splitDebounced(jobs, (plain) => this.insert(tx, plain), async (j) => {
        const [row] = all<{ id: string }>(tx, { text: INSERT_DEBOUNCED, params: debouncedParams(j) });
        return row!.id;
      });
    }
    const inserted = new Set(all<{ id: string }>(tx, sqliteStatements.insert(jobs)).map((r) => r.id));
    if (inserted.size === jobs.length) return jobs.map((j) => ({ id: j.id, deduped: false }));
    // ON CONFLICT DO NOTHING skipped the rest: each must duplicate a live dedupe key, whose job we hand back instead.
    const live = new Map<string, string>();
    const keys = JSON.stringify(skippedKeys(jobs, inserted));
    for (const r of all<{ id: string; dedupe_key: string }>(tx, { text: LIVE_DEDUPE, params: [keys] })) live.set(r.dedupe_key, r.id);
    return dedupeResults(jobs, inserted, live);
  }

  async claim(tx: Executor, owner: string, now: number, requests: ClaimRequest[]): Promise<JobRecord[]> {
    const out: JobRecord[] = [];
    const run: Runner = (q) => all(tx, q);
    for (const r of requests) {
      if (r.limit <= 0) continue;
      for (const row of claimKind(run, owner, now, r)) out.push(toRecord(row));
    }
    return out.sort(compareClaimOrder);
  }

  async settle(tx: Executor, owner: string, now: number, settlements: Settlement[]): Promise<string[]> {
    const { succeeded, retries, dead, released } = settlementRows(settlements);
    const held: string[] = [];
    const apply = (text: string, rows: unknown[][]) => {
      if (rows.length === 0) return;
      for (const r of all<{ id: string }>(tx, { text, params: [rowsJson(rows), now, owner] })) held.push(r.id);
    };
    apply(SUCCEED, succeeded);
    apply(RETRY, retries);
    apply(DEAD, dead);
    apply(RELEASE, released);
    return held;
  }

  async renew(tx: Executor, owner: string, now: number, leases: LeaseRenewal[]): Promise<string[]> {
    if (leases.length === 0) return [];
    const rows = rowsJson(leases.map((l) => [l.id, l.attempt, l.leaseExpiresAt]));
    return all<{ id: string }>(tx, { text: RENEW, params: [rows, now, owner] }).map((r) => r.id);
  }

  async savepoint<T>(tx: Executor, fn: () => Promise<T> | T): Promise<T> {
    const client = sqliteClientOf(tx);
    // Outside a transaction SAVEPOINT would begin one, and its statements would commit on their own.
    if (!client.inTransaction) throw new TransactionLost();
    statement(tx, "SAVEPOINT job_writes").run();
    try {
      const value = await fn();
      statement(tx, "RELEASE job_writes").run();
      return value;
    } catch (e) {
      // An I/O error can end the whole transaction; there is then no savepoint left to roll back to.
      if (!client.inTransaction) throw e instanceof TransactionLost ? e : new TransactionLost({ cause: e });
      statement(tx, "ROLLBACK TO job_writes").run();
      statement(tx, "RELEASE job_writes").run();
      throw e;
    }
  }

  async rescueExpired(tx: Executor, now: number): Promise<RescuedJob[]> {
    return all<RescuedJob>(tx, { text: RESCUE, params: [now] });
  }

  async runningOwners(tx: Executor): Promise<string[]> {
    return all<{ owner: string }>(tx, { text: RUNNING_OWNERS, params: [] }).map((r) => r.owner);
  }

  async endLeasesOf(tx: Executor, owners: string[], now: number): Promise<number> {
    return all<{ id: string }>(tx, { text: END_LEASES, params: [JSON.stringify(owners), now] }).length;
  }

  async prune(tx: Executor, status: "succeeded" | "dead", finishedBefore: number, limit: number): Promise<number> {
    return all<{ id: string }>(tx, { text: PRUNE, params: [finishedBefore, status, limit] }).length;
  }

  async redrive(tx: Executor, id: string, now: number): Promise<boolean> {
    try {
      return all<{ id: string }>(tx, { text: REDRIVE, params: [id, now] }).length === 1;
    } catch (e) {
      if (e instanceof Error && /UNIQUE constraint failed: jobs\.dedupe_key/.test(e.message)) {
        throw new Error(`cannot redrive ${id}: another job with its dedupe key is queued, running or awaiting retry`);
      }
      throw e;
    }
  }

  async get(ex: Executor, id: string): Promise<JobRecord | null> {
    const rows = all<Row>(ex, { text: "SELECT * FROM jobs WHERE id = ?", params: [id] });
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(ex: Executor, filter: JobFilter): Promise<JobRecord[]> {
    const where: string[] = [];
    const params: SQLQueryBindings[] = [];
    if (filter.status) {
      where.push("status = ?");
      params.push(filter.status);
    }
    if (filter.kind) {
      where.push("kind = ?");
      params.push(filter.kind);
    }
    const place = filter.after ?? filter.before;
    if (place) {
      where.push(`(created_at, id) ${filter.after ? "<" : ">"} (?, ?)`);
      params.push(place.createdAt, place.id);
    }
    params.push(Math.max(1, Math.min(filter.limit ?? 100, 1000)));
    // Twelve possible texts (with or without each filter, and the cursor's side), so the statement cache stays tiny.
    const cond = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const order = filter.before ? "ASC" : "DESC";
    const rows = all<Row>(ex, { text: `SELECT * FROM jobs ${cond} ORDER BY created_at ${order}, id ${order} LIMIT ?`, params });
    return rows.map(toRecord);
  }

  async stats(ex: Executor, now: number): Promise<StatsRows> {
    const counts = all<{ kind: string; status: string; count: number }>(ex, {
      text: "SELECT kind, status, count(*) AS count FROM jobs GROUP BY kind, status",
      params: [],
    });
    const oldestDue = all<{ kind: string; runAt: number }>(ex, {
      text: "SELECT kind, min(run_at) AS runAt FROM jobs WHERE status IN ('queued', 'failed') AND run_at <= ? GROUP BY kind",
      params: [now],
    });
    return { counts, oldestDue };
  }
}
