// The PostgreSQL JobStore: claims with FOR UPDATE SKIP LOCKED so instances pass each other instead of queueing, the same
// fencing on (id, attempt, owner, running) as SQLite, and NOTIFY on enqueue so idle instances wake without polling.
//
// The engine runs these in READ COMMITTED transactions (db.tx isolation option): a candidate row is locked by the
// claimer that picked it, and every later write to it is fenced, so nothing here depends on a serializable snapshot.
// Rows travel as one jsonb parameter (successes and releases as parallel id/attempt arrays) and every text is fixed,
// so Bun prepares each statement once per connection.
import type { SQL } from "bun";
import { pgClientOf, sqlState } from "../../db";
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

/** The channel enqueue notifies (payload: the job kind) and engines listen on. */
export const JOBS_CHANNEL = "vitrin_jobs";

function run<T>(ex: Executor, text: string, params: unknown[] = []): Promise<T[]> {
  return pgClientOf(ex).unsafe(text, params) as unknown as Promise<T[]>;
}

// Advisory lock keys. Two-key locks (class, key) and one-key locks live in separate spaces, so these cannot collide
// with the migration lock.
const KEY_LOCK_CLASS = `hashtext('vitrin.jobs.concurrency_key')`;
const MAINTENANCE_LOCK = `hashtext('vitrin.jobs.maintenance')`;

// The notice goes out with the commit (NOTIFY is transactional); identical ones in one transaction are sent once.
// `n` is joined in only so the CTE runs: PostgreSQL skips an unreferenced SELECT in WITH.
const INSERT = `WITH ins AS (
    INSERT INTO jobs (id, kind, payload, status, priority, run_at, attempts, max_attempts, dedupe_key, concurrency_key, created_at, updated_at)
    SELECT v->>0, v->>1, v->>2, 'queued', (v->>3)::int, (v->>4)::bigint, 0, (v->>5)::int, v->>6, v->>7, (v->>8)::bigint, (v->>8)::bigint
    FROM jsonb_array_elements($1::jsonb) AS v
    ON CONFLICT DO NOTHING RETURNING id, kind
  ), notified AS (
    SELECT count(pg_notify('${JOBS_CHANNEL}', k)) AS n FROM (SELECT DISTINCT kind AS k FROM ins) AS kinds
  )
  SELECT ins.id FROM ins, notified`;

// One row: the queued job holding the debounce key absorbs it and becomes due at the earlier time. If a claimer takes
// that job meanwhile (clearing the key), the conflict is gone and the row is inserted after all.
const INSERT_DEBOUNCED = `WITH ins AS (
    INSERT INTO jobs (id, kind, payload, status, priority, run_at, attempts, max_attempts, debounce_key, concurrency_key, created_at, updated_at)
    VALUES ($1, $2, $3, 'queued', $4::int, $5::bigint, 0, $6::int, $7, $8, $9::bigint, $9::bigint)
    ON CONFLICT (debounce_key) WHERE debounce_key IS NOT NULL
    DO UPDATE SET run_at = LEAST(jobs.run_at, EXCLUDED.run_at), updated_at = EXCLUDED.updated_at
    RETURNING id, kind
  ), notified AS (
    SELECT count(pg_notify('${JOBS_CHANNEL}', kind)) AS n FROM ins
  )
  SELECT ins.id FROM ins, notified`;

const LIVE_DEDUPE = `SELECT id, dedupe_key FROM jobs WHERE dedupe_key = ANY($1::text[])
  AND status IN ('queued', 'running', 'failed')`;

// A claim is a few statements per kind. The first counts running jobs per concurrency key, so keys already at their
// limit are left out of the next ones, which pick due jobs in claim order (priority by priority) and lock them (SKIP
// LOCKED: rows another instance is claiming are passed over, not waited for). They lock no more rows than the claim
// wants, since a locked row is one no other instance can take until this transaction ends. They also try a
// transaction advisory lock on each concurrency key among them: a key whose lock is taken belongs to another claimer
// until it commits, and is left alone this round. The last counts again for the keys we hold and leases what fits
// under the limit; that count needs a statement of its own, whose snapshot starts after the key locks were taken, or a claimer that committed just
// before could be missed and the key run over its limit.
// $1 kind.
const BUSY = `SELECT concurrency_key AS key, count(*) AS n FROM jobs
  WHERE kind = $1 AND status = 'running' AND concurrency_key IS NOT NULL
  GROUP BY concurrency_key`;
// The priorities among claimable jobs, highest first, one index seek each (a loose scan of jobs_ready_idx). $1 kind.
const PRIORITIES = `WITH RECURSIVE p(v) AS (
    SELECT (SELECT priority FROM jobs WHERE kind = $1 AND status IN ('queued', 'failed') ORDER BY priority DESC NULLS LAST LIMIT 1)
    UNION ALL
    SELECT (SELECT priority FROM jobs WHERE kind = $1 AND status IN ('queued', 'failed') AND priority < p.v
      ORDER BY priority DESC NULLS LAST LIMIT 1) FROM p
    WHERE p.v IS NOT NULL
  ) SELECT v FROM p WHERE v IS NOT NULL`;
// Due jobs of one priority in claim order, a range of jobs_ready_idx that ends at the first job not yet due: one
// statement across priorities had to filter out every job scheduled for later (retries waiting hours) behind the due
// ones whenever fewer were due than the claim wanted. $1 kind, $2 now, $3 keys at their limit, $4 limit, $5 priority.
const CANDIDATES = `SELECT id, concurrency_key AS key,
    (concurrency_key IS NULL OR pg_try_advisory_xact_lock(${KEY_LOCK_CLASS}, hashtext(kind || ':' || concurrency_key))) AS held
  FROM jobs
  WHERE kind = $1 AND priority = $5::int AND status IN ('queued', 'failed') AND run_at <= $2::bigint
    AND (concurrency_key IS NULL OR NOT concurrency_key = ANY($3::text[]))
  ORDER BY run_at, id
  LIMIT $4
  FOR UPDATE SKIP LOCKED`;
// $1 candidates [[id, order, key]], $2 kind, $3 key limit, $4 limit, $5 owner, $6 now, $7 lease ms.
const LEASE = `WITH cand AS (
    SELECT c->>0 AS id, (c->>1)::int AS ord, c->>2 AS key FROM jsonb_array_elements($1::jsonb) AS c
  ), busy AS (
    SELECT concurrency_key AS key, count(*) AS n FROM jobs
    WHERE kind = $2 AND status = 'running' AND concurrency_key IN (SELECT key FROM cand WHERE key IS NOT NULL)
    GROUP BY concurrency_key
  ), ranked AS (
    SELECT cand.id, cand.ord, cand.key, coalesce(busy.n, 0) AS n,
      row_number() OVER (PARTITION BY cand.key ORDER BY cand.ord) AS rn
    FROM cand LEFT JOIN busy ON busy.key = cand.key
  ), chosen AS (
    SELECT id FROM ranked WHERE key IS NULL OR rn + n <= $3::int ORDER BY ord LIMIT $4::int
  )
  UPDATE jobs SET status = 'running', lease_owner = $5, lease_expires_at = $6::bigint + $7::bigint, heartbeat_at = $6::bigint,
    started_at = $6::bigint, updated_at = $6::bigint, attempts = jobs.attempts + 1, debounce_key = NULL
  FROM chosen WHERE jobs.id = chosen.id AND jobs.status IN ('queued', 'failed')
  RETURNING jobs.*`;

// Each settlement and renewal is fenced: the row must still be this attempt, running, and leased to us. Rows are
// found by primary key in an id array, with the attempt (and any per-row value) read from parallel arrays at the id's
// position, and no join: joined to jsonb_array_elements, a planner that guesses "one running row of ours" (stale
// statistics, as on a busy queue) picks a nested loop that re-reads the whole batch for every running row, quadratic
// in the batch (~250 ms for 512 settlements beside two other instances' running rows, against ~15 ms so).
// $1 ids, $2 now, $3 owner, $4 attempts (same order as $1; a batch never settles or renews one job twice).
const FENCE_IDS = `jobs.id = ANY($1::text[]) AND jobs.attempts = ($4::int[])[array_position($1::text[], jobs.id)]
  AND jobs.status = 'running' AND jobs.lease_owner = $3`;
const SUCCEED = `UPDATE jobs SET status = 'succeeded', finished_at = $2::bigint, updated_at = $2::bigint, lease_owner = NULL, lease_expires_at = NULL
  WHERE ${FENCE_IDS} RETURNING jobs.id`;
// Per-row values ride in more parallel arrays, read at the row's position in $1. Retry: $5 run_at, $6 error.
const AT = `array_position($1::text[], jobs.id)`;
const RETRY = `UPDATE jobs SET status = 'failed', run_at = ($5::bigint[])[${AT}], last_error = ($6::text[])[${AT}],
    updated_at = $2::bigint, lease_owner = NULL, lease_expires_at = NULL
  WHERE ${FENCE_IDS} RETURNING jobs.id`;
// Dead: $5 error.
const DEAD = `UPDATE jobs SET status = 'dead', last_error = ($5::text[])[${AT}], finished_at = $2::bigint,
    updated_at = $2::bigint, lease_owner = NULL, lease_expires_at = NULL
  WHERE ${FENCE_IDS} RETURNING jobs.id`;
const RELEASE = `UPDATE jobs SET status = 'queued', attempts = jobs.attempts - 1,
    updated_at = $2::bigint, lease_owner = NULL, lease_expires_at = NULL
  WHERE ${FENCE_IDS} RETURNING jobs.id`;
// Renew: $5 the new lease expiry.
const RENEW = `UPDATE jobs SET lease_expires_at = ($5::bigint[])[${AT}], heartbeat_at = $2::bigint, updated_at = $2::bigint
  WHERE ${FENCE_IDS} RETURNING jobs.id`;

// Maintenance is one instance's at a time: the others would only find the same rows already handled.
const MAINTENANCE_TURN = `SELECT pg_try_advisory_xact_lock(${MAINTENANCE_LOCK}) AS mine`;

// SET expressions all read the row as it was, so last_error can still name the owner being cleared.
const RESCUE = `UPDATE jobs SET
    status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
    finished_at = CASE WHEN attempts >= max_attempts THEN $1::bigint ELSE NULL END,
    last_error = 'lease expired: worker ' || coalesce(lease_owner, '?') || ' stopped heartbeating during attempt ' || attempts,
    lease_owner = NULL, lease_expires_at = NULL, updated_at = $1::bigint
  WHERE status = 'running' AND lease_expires_at < $1::bigint
  RETURNING id, kind, status, attempts, last_error, payload`;

const RUNNING_OWNERS = `SELECT DISTINCT lease_owner AS owner FROM jobs WHERE status = 'running' AND lease_owner IS NOT NULL`;

const END_LEASES = `UPDATE jobs SET lease_expires_at = $2::bigint - 1
  WHERE status = 'running' AND lease_owner = ANY($1::text[]) AND lease_expires_at >= $2::bigint RETURNING id`;

const PRUNE = `DELETE FROM jobs WHERE id IN (
    SELECT id FROM jobs WHERE finished_at < $1::bigint AND status = $2 LIMIT $3 FOR UPDATE SKIP LOCKED
  ) RETURNING id`;

const REDRIVE = `UPDATE jobs SET status = 'queued', attempts = 0, run_at = $2::bigint, finished_at = NULL,
    lease_owner = NULL, lease_expires_at = NULL, updated_at = $2::bigint
  WHERE id = $1 AND status = 'dead' RETURNING id`;

export class PostgresJobStore implements JobStore {
  readonly wakeChannel = JOBS_CHANNEL;

  async insert(tx: Executor, jobs: NewJob[]): Promise<{ id: string; deduped: boolean }[]> {
    if (jobs.length === 0) return [];
    if (jobs.some((j) => j.debounceKey !== null)) {
      return splitDebounced(jobs, (plain) => this.insert(tx, plain), async (j) => {
        const [row] = await run<{ id: string }>(tx, INSERT_DEBOUNCED, debouncedParams(j));
        return row!.id;
      });
    }
    const inserted = new Set((await run<{ id: string }>(tx, INSERT, [jobs.map(insertRow)])).map((r) => r.id));
    if (inserted.size === jobs.length) return jobs.map((j) => ({ id: j.id, deduped: false }));
    // ON CONFLICT DO NOTHING skipped the rest: each must duplicate a live dedupe key, whose job we hand back instead.
    const live = new Map<string, string>();
    const keys = skippedKeys(jobs, inserted);
    for (const r of await run<{ id: string; dedupe_key: string }>(tx, LIVE_DEDUPE, [keys])) live.set(r.dedupe_key, r.id);
    return dedupeResults(jobs, inserted, live);
  }

  async claim(tx: Executor, owner: string, now: number, requests: ClaimRequest[]): Promise<JobRecord[]> {
    const out: JobRecord[] = [];
    for (const r of requests) {
      if (r.limit <= 0) continue;
      const busy = await run<{ key: string; n: string }>(tx, BUSY, [r.kind]);
      const full = busy.filter((b) => Number(b.n) >= r.keyLimit).map((b) => b.key);
      // Candidates in claim order, priority by priority, locking no more rows than the claim wants.
      const mine: unknown[][] = [];
      let locked = 0;
      for (const { v } of await run<{ v: number }>(tx, PRIORITIES, [r.kind])) {
        const candidates = await run<{ id: string; key: string | null; held: boolean }>(tx, CANDIDATES, [r.kind, now, full, r.limit - locked, v]);
        locked += candidates.length;
        for (const c of candidates) if (c.held) mine.push([c.id, mine.length, c.key]);
        if (locked >= r.limit) break;
      }
      if (mine.length === 0) continue;
      const leased = await run<Row>(tx, LEASE, [mine, r.kind, r.keyLimit, r.limit, owner, now, r.leaseMs]);
      for (const row of leased) out.push(toRecord(row));
    }
    return out.sort(compareClaimOrder);
  }

  async settle(tx: Executor, owner: string, now: number, settlements: Settlement[]): Promise<string[]> {
    const { succeeded, retries, dead, released } = settlementRows(settlements);
    const held: string[] = [];
    // Every statement takes (ids, now, owner, attempts, …one array per extra column), in the rows' order.
    for (const [text, rows] of [
      [RETRY, retries],
      [DEAD, dead],
      [SUCCEED, succeeded],
      [RELEASE, released],
    ] as const) {
      if (rows.length === 0) continue;
      const params: unknown[] = [rows.map((r) => r[0]), now, owner, rows.map((r) => r[1])];
      for (let col = 2; col < rows[0].length; col++) params.push(rows.map((r) => r[col]));
      for (const r of await run<{ id: string }>(tx, text, params)) held.push(r.id);
    }
    return held;
  }

  async renew(tx: Executor, owner: string, now: number, leases: LeaseRenewal[]): Promise<string[]> {
    if (leases.length === 0) return [];
    const params = [leases.map((l) => l.id), now, owner, leases.map((l) => l.attempt), leases.map((l) => l.leaseExpiresAt)];
    return (await run<{ id: string }>(tx, RENEW, params)).map((r) => r.id);
  }

  async savepoint<T>(tx: Executor, fn: () => Promise<T> | T): Promise<T> {
    const client: SQL = pgClientOf(tx);
    try {
      await client.unsafe("SAVEPOINT job_writes");
    } catch (e) {
      throw new TransactionLost({ cause: e });
    }
    try {
      const value = await fn();
      await client.unsafe("RELEASE SAVEPOINT job_writes");
      return value;
    } catch (e) {
      try {
        await client.unsafe("ROLLBACK TO SAVEPOINT job_writes");
        await client.unsafe("RELEASE SAVEPOINT job_writes");
      } catch (lost) {
        // The connection or the transaction is gone; there is no savepoint left to roll back to.
        throw e instanceof TransactionLost ? e : new TransactionLost({ cause: lost });
      }
      throw e;
    }
  }

  private async maintenanceTurn(tx: Executor): Promise<boolean> {
    const [row] = await run<{ mine: boolean }>(tx, MAINTENANCE_TURN);
    return row?.mine === true;
  }

  async runningOwners(tx: Executor): Promise<string[]> {
    return (await run<{ owner: string }>(tx, RUNNING_OWNERS)).map((r) => r.owner);
  }

  async endLeasesOf(tx: Executor, owners: string[], now: number): Promise<number> {
    return (await run<{ id: string }>(tx, END_LEASES, [owners, now])).length;
  }

  async rescueExpired(tx: Executor, now: number): Promise<RescuedJob[]> {
    if (!(await this.maintenanceTurn(tx))) return [];
    type Rescued = { id: string; kind: string; status: "queued" | "dead"; attempts: number; last_error: string; payload: string };
    const rows = await run<Rescued>(tx, RESCUE, [now]);
    return rows.map((r) => ({ id: r.id, kind: r.kind, status: r.status, attempts: r.attempts, lastError: r.last_error, payload: r.payload }));
  }

  async prune(tx: Executor, status: "succeeded" | "dead", finishedBefore: number, limit: number): Promise<number> {
    if (!(await this.maintenanceTurn(tx))) return 0;
    return (await run<{ id: string }>(tx, PRUNE, [finishedBefore, status, limit])).length;
  }

  async redrive(tx: Executor, id: string, now: number): Promise<boolean> {
    try {
      return (await run<{ id: string }>(tx, REDRIVE, [id, now])).length === 1;
    } catch (e) {
      if (sqlState(e) === "23505" && /jobs_dedupe_idx/.test(String((e as Error).message) + String((e as { constraint?: string }).constraint))) {
        throw new Error(`cannot redrive ${id}: another job with its dedupe key is queued, running or awaiting retry`);
      }
      throw e;
    }
  }

  async get(ex: Executor, id: string): Promise<JobRecord | null> {
    const [row] = await run<Row>(ex, "SELECT * FROM jobs WHERE id = $1", [id]);
    return row ? toRecord(row) : null;
  }

  async list(ex: Executor, filter: JobFilter): Promise<JobRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status) {
      params.push(filter.status);
      where.push(`status = $${params.length}`);
    }
    if (filter.kind) {
      params.push(filter.kind);
      where.push(`kind = $${params.length}`);
    }
    const place = filter.after ?? filter.before;
    if (place) {
      params.push(place.createdAt, place.id);
      where.push(`(created_at, id) ${filter.after ? "<" : ">"} ($${params.length - 1}::bigint, $${params.length})`);
    }
    params.push(Math.max(1, Math.min(filter.limit ?? 100, 1000)));
    const cond = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const order = filter.before ? "ASC" : "DESC";
    const rows = await run<Row>(ex, `SELECT * FROM jobs ${cond} ORDER BY created_at ${order}, id ${order} LIMIT $${params.length}`, params);
    return rows.map(toRecord);
  }

  async stats(ex: Executor, now: number): Promise<StatsRows> {
    const counts = await run<{ kind: string; status: string; count: string }>(
      ex,
      "SELECT kind, status, count(*) AS count FROM jobs GROUP BY kind, status",
    );
    const oldestDue = await run<{ kind: string; run_at: string }>(
      ex,
      "SELECT kind, min(run_at) AS run_at FROM jobs WHERE status IN ('queued', 'failed') AND run_at <= $1::bigint GROUP BY kind",
      [now],
    );
    return {
      counts: counts.map((r) => ({ kind: r.kind, status: r.status, count: Number(r.count) })),
      oldestDue: oldestDue.map((r) => ({ kind: r.kind, runAt: Number(r.run_at) })),
    };
  }
}
