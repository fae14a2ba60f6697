// The SQLite JobStore: the only file with dialect-specific job SQL (claims, fenced batch updates, upsert-style dedupe).
//
// SQLite has one writer at a time (db.tx runs BEGIN IMMEDIATE), so a claim needs no row locks: the UPDATE … WHERE id IN
// (SELECT …) RETURNING * below is atomic against every other process. A PostgreSQL store keeps the same shape and adds
// FOR UPDATE SKIP LOCKED to the inner selects so concurrent claimers pass each other instead of queueing.
import { sql, type SQL } from "drizzle-orm";
import type {
  ClaimRequest,
  Executor,
  JobFilter,
  JobRecord,
  JobStatus,
  JobStore,
  LeaseRenewal,
  NewJob,
  RescuedJob,
  Settlement,
  StatsRows,
} from "./store";

type Row = {
  id: string;
  kind: string;
  payload: string;
  status: string;
  priority: number;
  run_at: number;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  heartbeat_at: number | null;
  last_error: string | null;
  dedupe_key: string | null;
  concurrency_key: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
};

function toRecord(r: Row): JobRecord {
  return {
    id: r.id,
    kind: r.kind,
    payload: r.payload,
    status: r.status as JobStatus,
    priority: r.priority,
    runAt: r.run_at,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    heartbeatAt: r.heartbeat_at,
    lastError: r.last_error,
    dedupeKey: r.dedupe_key,
    concurrencyKey: r.concurrency_key,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

/** Claim order everywhere: higher priority first, then the longest-due, then id so ties are stable. */
export function compareClaimOrder(a: JobRecord, b: JobRecord): number {
  return b.priority - a.priority || a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * One kind's share of a claim. The scan walks jobs_ready_idx (kind, priority DESC, run_at, id) in claim order, skipping
 * keys already at their limit, and stops after a window a little wider than the claim; ROW_NUMBER then admits only as
 * many jobs per key as the key has free slots. A key with a deep backlog can thin one round out, but once at its limit
 * it is skipped outright by the next.
 */
function claimBranch(r: ClaimRequest, now: number): SQL {
  const window = r.limit + 64;
  return sql`SELECT id FROM (
    SELECT id, priority, run_at FROM (
      SELECT id, priority, run_at, concurrency_key,
        ROW_NUMBER() OVER (PARTITION BY concurrency_key ORDER BY priority DESC, run_at, id) AS key_rank
      FROM (
        SELECT id, priority, run_at, concurrency_key FROM jobs
        WHERE kind = ${r.kind} AND status IN ('queued', 'failed') AND run_at <= ${now}
          AND (concurrency_key IS NULL OR concurrency_key NOT IN (
            SELECT concurrency_key FROM jobs
            WHERE kind = ${r.kind} AND status = 'running' AND concurrency_key IS NOT NULL
            GROUP BY concurrency_key HAVING count(*) >= ${r.keyLimit}))
        ORDER BY priority DESC, run_at, id LIMIT ${window}
      )
    ) AS c
    WHERE c.concurrency_key IS NULL OR c.key_rank + (
      SELECT count(*) FROM jobs AS r
      WHERE r.kind = ${r.kind} AND r.status = 'running' AND r.concurrency_key = c.concurrency_key) <= ${r.keyLimit}
    ORDER BY priority DESC, run_at, id LIMIT ${r.limit}
  )`;
}

/** Many rows travel as one JSON parameter: one short statement text (compiled once), no per-row bind overhead. */
function rowsJson(rows: unknown[][]): string {
  return JSON.stringify(rows);
}

/** The hot statements, exposed so bench/jobs.ts can time the bare SQL against the engine with the very same text. */
export const sqliteStatements = {
  insert(jobs: NewJob[]): SQL {
    const rows = rowsJson(
      jobs.map((j) => [j.id, j.kind, j.payload, j.priority, j.runAt, j.maxAttempts, j.dedupeKey, j.concurrencyKey, j.createdAt]),
    );
    // WHERE true: without it SQLite would read ON CONFLICT as part of the SELECT's join syntax.
    return sql`INSERT INTO jobs (id, kind, payload, status, priority, run_at, attempts, max_attempts, dedupe_key, concurrency_key, created_at, updated_at)
      SELECT value->>0, value->>1, value->>2, 'queued', value->>3, value->>4, 0, value->>5, value->>6, value->>7, value->>8, value->>8
      FROM json_each(${rows}) WHERE true
      ON CONFLICT DO NOTHING RETURNING id`;
  },

  claim(owner: string, now: number, requests: ClaimRequest[]): SQL {
    const lease = sql.join(
      requests.map((r) => sql`WHEN ${r.kind} THEN ${r.leaseMs}`),
      sql` `,
    );
    const branches = sql.join(
      requests.map((r) => claimBranch(r, now)),
      sql` UNION ALL `,
    );
    // +status: keeps the planner on the primary key for `id IN (…)` instead of scanning every queued row by status.
    return sql`UPDATE jobs SET status = 'running', lease_owner = ${owner}, lease_expires_at = ${now} + CASE kind ${lease} END,
        heartbeat_at = ${now}, started_at = ${now}, updated_at = ${now}, attempts = attempts + 1
      WHERE id IN (${branches}) AND +status IN ('queued', 'failed')
      RETURNING *`;
  },

  succeed(owner: string, now: number, done: { id: string; attempt: number }[]): SQL {
    const rows = rowsJson(done.map((d) => [d.id, d.attempt]));
    return sql`UPDATE jobs SET status = 'succeeded', finished_at = ${now}, updated_at = ${now}, lease_owner = NULL, lease_expires_at = NULL
      FROM json_each(${rows}) AS d
      WHERE jobs.id = d.value->>0 AND jobs.attempts = d.value->>1 AND +jobs.status = 'running' AND +jobs.lease_owner = ${owner}
      RETURNING jobs.id`;
  },
};

export class SqliteJobStore implements JobStore {
  async insert(tx: Executor, jobs: NewJob[]): Promise<{ id: string; deduped: boolean }[]> {
    if (jobs.length === 0) return [];
    const inserted = new Set((await tx.all<{ id: string }>(sqliteStatements.insert(jobs))).map((r) => r.id));
    if (inserted.size === jobs.length) return jobs.map((j) => ({ id: j.id, deduped: false }));
    // ON CONFLICT DO NOTHING skipped the rest: each must duplicate a live dedupe key, whose job we hand back instead.
    const keys = [...new Set(jobs.filter((j) => !inserted.has(j.id) && j.dedupeKey !== null).map((j) => j.dedupeKey))];
    const live = new Map<string, string>();
    const rows = await tx.all<{ id: string; dedupe_key: string }>(
      sql`SELECT id, dedupe_key FROM jobs WHERE dedupe_key IN (SELECT value FROM json_each(${JSON.stringify(keys)}))
        AND dedupe_key IS NOT NULL AND status IN ('queued', 'running', 'failed')`,
    );
    for (const r of rows) live.set(r.dedupe_key, r.id);
    return jobs.map((j) => {
      if (inserted.has(j.id)) return { id: j.id, deduped: false };
      const existing = j.dedupeKey === null ? undefined : live.get(j.dedupeKey);
      if (existing === undefined) throw new Error(`job ${j.id} (${j.kind}) was not inserted and matches no live dedupe key`);
      return { id: existing, deduped: true };
    });
  }

  async claim(tx: Executor, owner: string, now: number, requests: ClaimRequest[]): Promise<JobRecord[]> {
    const wanted = requests.filter((r) => r.limit > 0);
    if (wanted.length === 0) return [];
    const rows = await tx.all<Row>(sqliteStatements.claim(owner, now, wanted));
    return rows.map(toRecord).sort(compareClaimOrder);
  }

  async settle(tx: Executor, owner: string, now: number, settlements: Settlement[]): Promise<string[]> {
    const succeeded: [string, number][] = [];
    const retries: [string, number, number, string][] = [];
    const dead: [string, number, string][] = [];
    const released: [string, number][] = [];
    for (const s of settlements) {
      if (s.outcome === "succeeded") succeeded.push([s.id, s.attempt]);
      else if (s.outcome === "retry") retries.push([s.id, s.attempt, s.runAt, s.error]);
      else if (s.outcome === "dead") dead.push([s.id, s.attempt, s.error]);
      else released.push([s.id, s.attempt]);
    }
    // Each update is fenced: the row must still be this attempt, running, and leased to us.
    const fence = sql`jobs.id = d.value->>0 AND jobs.attempts = d.value->>1 AND +jobs.status = 'running' AND +jobs.lease_owner = ${owner}`;
    const held: string[] = [];
    const apply = async (statement: SQL) => {
      for (const r of await tx.all<{ id: string }>(statement)) held.push(r.id);
    };
    if (succeeded.length) {
      await apply(sqliteStatements.succeed(owner, now, succeeded.map(([id, attempt]) => ({ id, attempt }))));
    }
    if (retries.length) {
      await apply(sql`UPDATE jobs SET status = 'failed', run_at = d.value->>2, last_error = d.value->>3,
          updated_at = ${now}, lease_owner = NULL, lease_expires_at = NULL
        FROM json_each(${rowsJson(retries)}) AS d WHERE ${fence} RETURNING jobs.id`);
    }
    if (dead.length) {
      await apply(sql`UPDATE jobs SET status = 'dead', last_error = d.value->>2, finished_at = ${now},
          updated_at = ${now}, lease_owner = NULL, lease_expires_at = NULL
        FROM json_each(${rowsJson(dead)}) AS d WHERE ${fence} RETURNING jobs.id`);
    }
    if (released.length) {
      await apply(sql`UPDATE jobs SET status = 'queued', attempts = attempts - 1,
          updated_at = ${now}, lease_owner = NULL, lease_expires_at = NULL
        FROM json_each(${rowsJson(released)}) AS d WHERE ${fence} RETURNING jobs.id`);
    }
    return held;
  }

  async renew(tx: Executor, owner: string, now: number, leases: LeaseRenewal[]): Promise<string[]> {
    if (leases.length === 0) return [];
    const rows = rowsJson(leases.map((l) => [l.id, l.attempt, l.leaseExpiresAt]));
    const renewed = await tx.all<{ id: string }>(sql`UPDATE jobs SET lease_expires_at = d.value->>2, heartbeat_at = ${now}, updated_at = ${now}
      FROM json_each(${rows}) AS d
      WHERE jobs.id = d.value->>0 AND jobs.attempts = d.value->>1 AND +jobs.status = 'running' AND +jobs.lease_owner = ${owner}
      RETURNING jobs.id`);
    return renewed.map((r) => r.id);
  }

  async rescueExpired(tx: Executor, now: number): Promise<RescuedJob[]> {
    // SET expressions all read the row as it was, so last_error can still name the owner being cleared.
    return tx.all<RescuedJob>(
      sql`UPDATE jobs SET
          status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,
          finished_at = CASE WHEN attempts >= max_attempts THEN ${now} ELSE NULL END,
          last_error = 'lease expired: worker ' || coalesce(lease_owner, '?') || ' stopped heartbeating during attempt ' || attempts,
          lease_owner = NULL, lease_expires_at = NULL, updated_at = ${now}
        WHERE status = 'running' AND lease_expires_at < ${now}
        RETURNING id, kind, status, attempts, last_error AS lastError`,
    );
  }

  async prune(tx: Executor, status: "succeeded" | "dead", finishedBefore: number, limit: number): Promise<number> {
    const rows = await tx.all<{ id: string }>(
      sql`DELETE FROM jobs WHERE id IN (
        SELECT id FROM jobs WHERE finished_at < ${finishedBefore} AND status = ${status} LIMIT ${limit}
      ) RETURNING id`,
    );
    return rows.length;
  }

  async redrive(tx: Executor, id: string, now: number): Promise<boolean> {
    try {
      const rows = await tx.all<{ id: string }>(
        sql`UPDATE jobs SET status = 'queued', attempts = 0, run_at = ${now}, finished_at = NULL,
            lease_owner = NULL, lease_expires_at = NULL, updated_at = ${now}
          WHERE id = ${id} AND status = 'dead' RETURNING id`,
      );
      return rows.length === 1;
    } catch (e) {
      if (e instanceof Error && /UNIQUE constraint failed: jobs\.dedupe_key/.test(e.message)) {
        throw new Error(`cannot redrive ${id}: another job with its dedupe key is queued, running or awaiting retry`);
      }
      throw e;
    }
  }

  async get(ex: Executor, id: string): Promise<JobRecord | null> {
    const rows = await ex.all<Row>(sql`SELECT * FROM jobs WHERE id = ${id}`);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(ex: Executor, filter: JobFilter): Promise<JobRecord[]> {
    const where: SQL[] = [];
    if (filter.status) where.push(sql`status = ${filter.status}`);
    if (filter.kind) where.push(sql`kind = ${filter.kind}`);
    const cond = where.length ? sql`WHERE ${sql.join(where, sql` AND `)}` : sql``;
    const limit = Math.max(1, Math.min(filter.limit ?? 100, 1000));
    const rows = await ex.all<Row>(sql`SELECT * FROM jobs ${cond} ORDER BY created_at DESC, id DESC LIMIT ${limit}`);
    return rows.map(toRecord);
  }

  async stats(ex: Executor, now: number): Promise<StatsRows> {
    const counts = await ex.all<{ kind: string; status: string; count: number }>(
      sql`SELECT kind, status, count(*) AS count FROM jobs GROUP BY kind, status`,
    );
    const oldestDue = await ex.all<{ kind: string; runAt: number }>(
      sql`SELECT kind, min(run_at) AS runAt FROM jobs WHERE status IN ('queued', 'failed') AND run_at <= ${now} GROUP BY kind`,
    );
    return { counts, oldestDue };
  }
}
