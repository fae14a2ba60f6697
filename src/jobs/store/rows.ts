// How job rows travel between the stores and the engine, the same for both dialects: a `jobs` row read into a
// JobRecord, the claim order, new jobs as parameter rows, dedupe answers, and settlements sorted by outcome.
import type { JobRecord, JobStatus, NewJob, Settlement } from "./contract";

// PostgreSQL's bigint columns arrive as strings (Bun's default for int8); epoch ms fit a double exactly.
type EpochMs = number | string;

/** A `jobs` row as a driver returns it (SELECT * or RETURNING *). */
export type Row = {
  id: string;
  kind: string;
  payload: string;
  status: string;
  priority: number;
  run_at: EpochMs;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: EpochMs | null;
  heartbeat_at: EpochMs | null;
  last_error: string | null;
  dedupe_key: string | null;
  concurrency_key: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
  started_at: EpochMs | null;
  finished_at: EpochMs | null;
};

const orNull = (v: EpochMs | null) => (v === null ? null : Number(v));

export function toRecord(r: Row): JobRecord {
  return {
    id: r.id,
    kind: r.kind,
    payload: r.payload,
    status: r.status as JobStatus,
    priority: r.priority,
    runAt: Number(r.run_at),
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    leaseOwner: r.lease_owner,
    leaseExpiresAt: orNull(r.lease_expires_at),
    heartbeatAt: orNull(r.heartbeat_at),
    lastError: r.last_error,
    dedupeKey: r.dedupe_key,
    concurrencyKey: r.concurrency_key,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    startedAt: orNull(r.started_at),
    finishedAt: orNull(r.finished_at),
  };
}

/** Claim order everywhere: higher priority first, then the longest-due, then id so ties are stable. */
export function compareClaimOrder(a: JobRecord, b: JobRecord): number {
  return b.priority - a.priority || a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A new job as one row of the batch insert's parameter (both INSERT statements read these positions). */
export function insertRow(j: NewJob): unknown[] {
  return [j.id, j.kind, j.payload, j.priority, j.runAt, j.maxAttempts, j.dedupeKey, j.concurrencyKey, j.createdAt];
}

/** A new job's parameters for the one-row debounced insert (its debounce key where the batch has the dedupe key). */
export function debouncedParams(j: NewJob): (string | number | null)[] {
  return [j.id, j.kind, j.payload, j.priority, j.runAt, j.maxAttempts, j.debounceKey, j.concurrencyKey, j.createdAt];
}

/** Dedupe keys of the jobs ON CONFLICT DO NOTHING skipped: each must belong to a live job, handed back instead. */
export function skippedKeys(jobs: NewJob[], inserted: Set<string>): string[] {
  const keys = new Set<string>();
  for (const j of jobs) if (!inserted.has(j.id) && j.dedupeKey !== null) keys.add(j.dedupeKey);
  return [...keys];
}

/** Insert results in input order: a job inserted, or the live job (`live`: dedupe key → id) that absorbed it. */
export function dedupeResults(jobs: NewJob[], inserted: Set<string>, live: Map<string, string>): { id: string; deduped: boolean }[] {
  return jobs.map((j) => {
    if (inserted.has(j.id)) return { id: j.id, deduped: false };
    const existing = j.dedupeKey === null ? undefined : live.get(j.dedupeKey);
    if (existing === undefined) throw new Error(`job ${j.id} (${j.kind}) was not inserted and matches no live dedupe key`);
    return { id: existing, deduped: true };
  });
}

/** Settlements as parameter rows, one list per outcome: [id, attempt] plus run_at and error for retries, error for deaths. */
export type SettlementRows = { succeeded: unknown[][]; retries: unknown[][]; dead: unknown[][]; released: unknown[][] };

export function settlementRows(settlements: Settlement[]): SettlementRows {
  const rows: SettlementRows = { succeeded: [], retries: [], dead: [], released: [] };
  for (const s of settlements) {
    if (s.outcome === "succeeded") rows.succeeded.push([s.id, s.attempt]);
    else if (s.outcome === "retry") rows.retries.push([s.id, s.attempt, s.runAt, s.error]);
    else if (s.outcome === "dead") rows.dead.push([s.id, s.attempt, s.error]);
    else rows.released.push([s.id, s.attempt]);
  }
  return rows;
}
