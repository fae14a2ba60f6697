// The storage contract of the job engine: every statement that depends on the SQL dialect sits behind this interface,
// implemented by sqlite.ts and postgres.ts (FOR UPDATE SKIP LOCKED claims) without touching the engine or callers.
import type { Orm } from "../../db";

export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "dead";
export const JOB_STATUSES: readonly JobStatus[] = ["queued", "running", "succeeded", "failed", "dead"];

/**
 * The caller's transaction is gone (SQLite rolls the whole transaction back on an I/O error or a full disk), so
 * nothing more may run in it: a SAVEPOINT now would quietly open a new transaction of its own.
 */
export class TransactionLost extends Error {
  constructor(options?: { cause?: unknown }) {
    super("the transaction was rolled back underneath the statement", options);
    this.name = "TransactionLost";
  }
}

/** One row of the `jobs` table. Times are epoch ms; `payload` is the stored JSON text. */
export type JobRecord = {
  id: string;
  kind: string;
  payload: string;
  status: JobStatus;
  priority: number;
  runAt: number;
  attempts: number;
  maxAttempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  heartbeatAt: number | null;
  lastError: string | null;
  dedupeKey: string | null;
  concurrencyKey: string | null;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
};

/** The handle statements run on: the caller's transaction or `db.read`. A PostgreSQL build widens this type. */
export type Executor = Orm;

export type NewJob = {
  id: string;
  kind: string;
  payload: string;
  priority: number;
  runAt: number;
  maxAttempts: number;
  dedupeKey: string | null;
  /** At most one queued job per key: enqueueing another moves that one's run_at earlier instead (see EnqueueOptions). */
  debounceKey: string | null;
  concurrencyKey: string | null;
  createdAt: number;
};

/** Claim up to `limit` jobs of `kind`, with at most `keyLimit` running per concurrency key (across all workers). */
export type ClaimRequest = { kind: string; limit: number; leaseMs: number; keyLimit: number };

/** A finished attempt. Every settlement is fenced on (id, attempt, owner, running), so a lost lease cannot overwrite. */
export type Settlement =
  | { outcome: "succeeded"; id: string; attempt: number }
  | { outcome: "retry"; id: string; attempt: number; runAt: number; error: string }
  | { outcome: "dead"; id: string; attempt: number; error: string }
  /** Shutdown hand-back: back to queued and the attempt is not counted. */
  | { outcome: "released"; id: string; attempt: number };

export type LeaseRenewal = { id: string; attempt: number; leaseExpiresAt: number };

export type RescuedJob = {
  id: string;
  kind: string;
  status: "queued" | "dead";
  attempts: number;
  lastError: string;
  /** The stored JSON text, for the kind's onDead hook. */
  payload: string;
};

/**
 * Which jobs to list, newest first by (created_at, id); `after` keeps the older ones than that place, `before` the
 * newer ones (returned oldest first, nearest the place first, for the caller to reverse).
 */
export type JobFilter = {
  status?: JobStatus;
  kind?: string;
  limit?: number;
  after?: { createdAt: number; id: string };
  before?: { createdAt: number; id: string };
};

export type StatsRows = {
  counts: { kind: string; status: string; count: number }[];
  /** Earliest run_at among jobs that are due (queued or failed with run_at ≤ now), per kind. */
  oldestDue: { kind: string; runAt: number }[];
};

export interface JobStore {
  /** A notification channel the store signals on enqueue (payload: the kind), for engines on other hosts; null if none. */
  readonly wakeChannel: string | null;
  /**
   * Inserts inside the caller's transaction; a dedupe key already queued/running/failed yields that job instead, and a
   * debounce key already queued yields that job, its run_at moved to the earlier of the two. Claiming a job clears
   * its debounce key.
   */
  insert(tx: Executor, jobs: NewJob[]): Promise<{ id: string; deduped: boolean }[]>;
  /** Atomically leases due jobs to `owner` (status running, attempts + 1) and returns them, best first. */
  claim(tx: Executor, owner: string, now: number, requests: ClaimRequest[]): Promise<JobRecord[]>;
  /** Applies finished attempts; returns the ids whose lease was still held (the others were fenced out). */
  settle(tx: Executor, owner: string, now: number, settlements: Settlement[]): Promise<string[]>;
  /** Extends leases still held by `owner`; returns the ids renewed (missing ids have lost their lease). */
  renew(tx: Executor, owner: string, now: number, leases: LeaseRenewal[]): Promise<string[]>;
  /**
   * Runs `fn` (statements on `tx`) under a savepoint inside the caller's transaction: a throw undoes only what `fn`
   * wrote and is rethrown. Lets one job's handler writes fail without failing the round that carries them. Throws
   * TransactionLost, whatever `fn` threw, when the transaction itself did not survive.
   */
  savepoint<T>(tx: Executor, fn: () => Promise<T> | T): Promise<T>;
  /** Running jobs whose lease ran out (their worker died): back to queued, or dead when attempts are used up. */
  rescueExpired(tx: Executor, now: number): Promise<RescuedJob[]>;
  /** The lease owners of running jobs. */
  runningOwners(tx: Executor): Promise<string[]>;
  /** Ends the leases of `owners`' running jobs now (known dead), so the next rescueExpired takes their jobs back. */
  endLeasesOf(tx: Executor, owners: string[], now: number): Promise<number>;
  /** Deletes up to `limit` jobs in `status` finished before `finishedBefore`; returns how many. */
  prune(tx: Executor, status: "succeeded" | "dead", finishedBefore: number, limit: number): Promise<number>;
  /** Dead → queued with attempts reset; false when the job is not dead. */
  redrive(tx: Executor, id: string, now: number): Promise<boolean>;
  get(ex: Executor, id: string): Promise<JobRecord | null>;
  list(ex: Executor, filter: JobFilter): Promise<JobRecord[]>;
  stats(ex: Executor, now: number): Promise<StatsRows>;
}

/**
 * Inserts debounced jobs one at a time with `one` (each may land on an existing queued job) and the rest in one batch
 * with `plain`; results in input order.
 */
export async function splitDebounced(
  jobs: NewJob[],
  plain: (jobs: NewJob[]) => Promise<{ id: string; deduped: boolean }[]>,
  one: (job: NewJob) => Promise<string>,
): Promise<{ id: string; deduped: boolean }[]> {
  const out = new Array<{ id: string; deduped: boolean }>(jobs.length);
  const rest: number[] = [];
  for (let i = 0; i < jobs.length; i++) {
    const j = jobs[i]!;
    if (j.debounceKey === null) rest.push(i);
    else {
      const id = await one(j);
      out[i] = { id, deduped: id !== j.id };
    }
  }
  const inserted = await plain(rest.map((i) => jobs[i]!));
  rest.forEach((i, n) => (out[i] = inserted[n]!));
  return out;
}
