// What callers of the job engine see: handler context, kind and enqueue options, engine options and the results of
// stop, maintenance and stats, with the checks on option values.
import type { Db, Orm } from "../db";
import type { Clock, Logger } from "../kernel";
import type { Backoff } from "./backoff";
import type { DeadHook, HandedBackHook } from "./dead";
import type { JobStatus, JobStore } from "./store";

export type JobContext<P = unknown> = {
  id: string;
  kind: string;
  payload: P;
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
  /** Aborts on shutdown, timeout, or a lost lease; the attempt's result is ignored from then on. */
  signal: AbortSignal;
  /**
   * Aborts as soon as the engine begins a graceful shutdown, while `signal` still waits for the deadline. A job that
   * works through many small units (an account's webhooks) stops taking more, finishes those under way and returns.
   */
  shutdown: AbortSignal;
  /** Extends the lease now (the engine also renews every leaseMs/3 on its own); throws JobAborted if the lease was lost. */
  heartbeat(): Promise<void>;
  /**
   * Queues `write` for the transaction that records this attempt's outcome, so the handler's own bookkeeping (an
   * attempt log, a status column) commits atomically with the settlement instead of paying for a commit of its own.
   * Writes run in the order queued, before the outcome is written. They run whether or not the lease is still held
   * (they describe what the attempt did, which happened either way). If one throws, all of the attempt's writes are
   * undone and a success counts as a failure with that error (retried or dead as usual); other attempts' writes are
   * kept, which can mean running them a second time after a rollback, so a write must only touch the database.
   * Writes queued after the outcome was decided (timeout, lost lease) run on their own in the next round.
   * The handler returns before they commit: a crash in between loses them together with the outcome, so the job
   * simply runs again, as at-least-once delivery already allows.
   */
  deferWrite(write: DeferredWrite): void;
  log: Logger;
};

/** Statements a handler defers to the round that settles its attempt (see JobContext.deferWrite). */
export type DeferredWrite = (tx: Orm) => Promise<void> | void;

export type JobHandler<P = unknown> = (ctx: JobContext<P>) => Promise<void> | void;

export type KindOptions = {
  /** Handlers of this kind running at once in this engine (a per-process resource limit). Default 1. */
  concurrency?: number;
  /** Jobs of this kind with the same concurrency key running at once across all engines. Default 1. */
  keyConcurrency?: number;
  /** Attempts before a job enqueued while this kind is registered goes dead; stored on the job. Default 5. */
  maxAttempts?: number;
  /** How long a claim is valid without a heartbeat; a dead worker's jobs are re-run after this. Default 30 s. */
  leaseMs?: number;
  /** Limit per attempt (on the engine's clock); the signal aborts and the attempt counts as failed. 0 disables. Default 15 min. */
  timeoutMs?: number;
  /** Delay before the next attempt. Default: exponential from 1 s, ×2, capped at 1 h, minus up to 50 % jitter. */
  backoff?: Backoff;
  /** Settles the job's owner in the transaction that marks the job dead (see DeadHook). */
  onDead?: DeadHook;
  /** Tells the job's owner, in the transaction that hands the job back at shutdown, that it waits again (see HandedBackHook). */
  onHandedBack?: HandedBackHook;
};

export type EnqueueOptions = {
  /** Earliest start (epoch ms). Default now. */
  runAt?: number;
  /** Higher runs first among due jobs of the same kind. Default 0. */
  priority?: number;
  maxAttempts?: number;
  /** While a job with this key is queued, running or awaiting retry, enqueueing another returns that one. */
  dedupeKey?: string;
  /**
   * While a job with this key is queued and not yet started, enqueueing another returns that one instead, due at the
   * earlier of the two run_at times (its payload is kept). Unlike dedupeKey, a running job does not absorb it: work
   * that arrives while one runs gets a run of its own after it. For jobs that sweep up whatever is pending (an
   * account's undelivered webhooks), so a burst of enqueues costs one run. Cannot be combined with dedupeKey.
   */
  debounceKey?: string;
  /** Limits running jobs of this kind sharing the key (e.g. an account id) to the kind's keyConcurrency. */
  concurrencyKey?: string;
};

export type EnqueueItem = EnqueueOptions & { kind: string; payload: unknown };
export type EnqueueResult = { id: string; deduped: boolean };

export type JobEngineOptions = {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Lease owner name; unique per engine. Default host:pid:random. */
  owner?: string;
  /** Backstop poll for jobs enqueued by other processes (in-process enqueues wake the loop at once). Default 1000 ms. */
  pollMs?: number;
  /** Most jobs claimed in one round (one transaction). Default 256. */
  batchSize?: number;
  /**
   * After a handler finishes, how long the next round may wait for more to finish, so one commit settles them all.
   * The wait ends early once half of what the kind had running has finished. 0 still gathers what finishes in the
   * same event-loop turn. Default 1 ms.
   */
  gatherMs?: number;
  /** How often lease rescue and pruning run. Default 5000 ms. */
  maintenanceMs?: number;
  /** Overrides every kind's lease (operators trade failover time against renewal traffic; tests shorten it). */
  leaseMs?: number | null;
  /** Succeeded jobs are deleted this long after finishing. Default 7 days. */
  retainSucceededMs?: number;
  /** Dead jobs are deleted this long after dying. Default 30 days. */
  retainDeadMs?: number;
  /** Source of jitter; tests pass a fixed one. */
  random?: () => number;
  /** Storage implementation; chosen from db.dialect when omitted. */
  store?: JobStore;
  /** Told the kind of each job that went dead, once its death is committed (metrics). */
  observeDeath?: (kind: string) => void;
};

export type StopResult = { finished: number; released: number };
export type MaintenanceResult = { requeued: number; dead: number; pruned: number };
export type KindStats = Record<JobStatus, number> & { oldestQueuedAgeMs: number | null };
export type JobStats = {
  kinds: Record<string, KindStats>;
  totals: Record<JobStatus, number>;
  /** Age of the longest-waiting due job (queued, or failed and due for retry); null when none is waiting. */
  oldestQueuedAgeMs: number | null;
};

/** A whole-number option at least `min`; anything else is a programming error, thrown at construction. */
export function positiveInt(name: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${value}`);
  return value;
}
