// The durable job engine: transactional enqueue, leased claims, retries with backoff, dead letters, graceful shutdown.
//
// Delivery is AT LEAST ONCE. A job is only marked done after its handler returns, and a worker that dies mid-job
// (crash, SIGKILL, power cut) stops renewing its lease, so another worker re-runs the job once the lease runs out.
// Completions are also written in batches, so a crash can drop the record of a job that did finish. Handlers must
// therefore be idempotent: running one twice must have the same effect as running it once.
//
// Every state change is fenced on (id, attempt, lease owner, status running): a worker whose lease was taken over can
// neither complete nor fail the job any more, it can only notice (heartbeat fails, its signal aborts) and stop.
//
// Throughput comes from rounds: one write transaction (one fsync) settles every attempt finished since the last round,
// applies the writes their handlers deferred (ctx.deferWrite), renews due leases and claims new jobs. A burst of
// completions is gathered into one round rather than each paying for its own commit.
//
// The class is the engine's face; its parts take the engine's state (state.ts) explicitly: a round (round.ts, with
// round-writes.ts), an attempt (attempt.ts), the loop (loop.ts), upkeep (maintenance.ts), stopping (shutdown.ts).
import type { Orm } from "../db";
import { enqueueJobs } from "./enqueue";
import { runLoop, listenForEnqueues } from "./loop";
import { maintain } from "./maintenance";
import type {
  EnqueueItem,
  EnqueueOptions,
  EnqueueResult,
  JobEngineOptions,
  JobHandler,
  JobStats,
  KindOptions,
  MaintenanceResult,
  StopResult,
} from "./options";
import { round } from "./round";
import type { RoundBackoff } from "./round-backoff";
import { drain, shutdown } from "./shutdown";
import { markClaimable, newEngineState, registerKind, serial, wake, write, type EngineState } from "./state";
import { jobStats } from "./stats";
import type { JobFilter, JobRecord } from "./store";

export class JobEngine {
  readonly owner: string;
  /** Rounds that failed to write (full disk, locked database) make the next ones wait, and are logged sparingly. */
  readonly roundBackoff: RoundBackoff;
  private readonly state: EngineState;

  constructor(opts: JobEngineOptions) {
    this.state = newEngineState(opts);
    this.owner = this.state.owner;
    this.roundBackoff = this.state.roundBackoff;
  }

  /** Declares how to run jobs of `kind`. Register before enqueueing so the kind's maxAttempts is stored on new jobs. */
  register<P>(kind: string, handler: JobHandler<P>, opts: KindOptions = {}): this {
    registerKind(this.state, kind, handler as JobHandler<never>, opts);
    return this;
  }

  /** The kinds registered so far, sorted (the admin job list names them when a filter asks for another). */
  registeredKinds(): string[] {
    return [...this.state.kinds.keys()].sort();
  }

  /**
   * Whether a list filtered by `kind` asks for a kind at all: one of `known` (the kinds registered here, or the
   * service's list for a caller that registers none, such as the command line), or one with jobs in the table (left
   * by an earlier version, which can still be listed). Asked only when the filtered list came back empty.
   */
  async isKnownKind(kind: string, known: readonly string[] = this.registeredKinds()): Promise<boolean> {
    return known.includes(kind) || (await this.listJobs({ kind, limit: 1 })).length > 0;
  }

  /**
   * Adds a job inside the caller's transaction (`tx` from db.tx), so it exists exactly when the caller's writes do.
   * The scheduler is woken once that transaction commits.
   */
  async enqueue<P>(tx: Orm, kind: string, payload: P, opts: EnqueueOptions = {}): Promise<EnqueueResult> {
    const [result] = await this.enqueueMany(tx, [{ ...opts, kind, payload }]);
    return result!;
  }

  /** Many jobs in one statement per 500; results are in input order. */
  enqueueMany(tx: Orm, items: EnqueueItem[]): Promise<EnqueueResult[]> {
    return enqueueJobs(this.state, tx, items);
  }

  /** Runs the scheduler loop until stop(): claims on wake-ups from in-process enqueues and finished handlers, else every pollMs. */
  start(): void {
    const s = this.state;
    if (s.stopping) throw new Error("job engine is stopped");
    if (s.loop) return;
    s.loop = runLoop(s);
    listenForEnqueues(s);
  }

  /**
   * One explicit round: maintenance if due, record finished attempts, renew due leases, claim and dispatch.
   * Resolves, once the claimed handlers have been started, to how many jobs were claimed.
   */
  async tick(): Promise<number> {
    const s = this.state;
    const result = await serial(s, () => {
      // An explicit round looks at every kind, whatever earlier claims found.
      for (const k of s.kinds.values()) markClaimable(k);
      return round(s, true);
    });
    return result.claimed;
  }

  /** Waits until every running handler has returned, then writes their outcomes. */
  drain(): Promise<void> {
    return drain(this.state);
  }

  /**
   * Graceful shutdown: stop claiming, give running handlers until `deadlineMs` (wall clock) to finish, then abort the
   * rest and hand their jobs back (queued again, attempt not counted) so another worker starts them without waiting.
   */
  stop(opts: { deadlineMs?: number } = {}): Promise<StopResult> {
    const s = this.state;
    if (!s.stopped) s.stopped = shutdown(s, opts.deadlineMs ?? 30_000);
    return s.stopped;
  }

  /** Lease rescue and retention pruning now, whatever the schedule. */
  maintain(): Promise<MaintenanceResult> {
    return maintain(this.state);
  }

  listJobs(filter: JobFilter = {}): Promise<JobRecord[]> {
    return this.state.store.list(this.state.db.read, filter);
  }

  getJob(id: string): Promise<JobRecord | null> {
    return this.state.store.get(this.state.db.read, id);
  }

  /** Puts a dead job back in the queue with its attempts reset; false when the job is not dead. */
  async redrive(id: string): Promise<boolean> {
    const s = this.state;
    // Durable: the operator is told the job is queued again.
    const ok = await write(s, (tx) => s.store.redrive(tx, id, s.clock.now()), true);
    if (ok) {
      s.logger.info("job redriven", { job: id });
      for (const k of s.kinds.values()) markClaimable(k);
      wake(s);
    }
    return ok;
  }

  /** Counts by kind and status, and how long the oldest due job has waited (for metrics). */
  async stats(): Promise<JobStats> {
    const now = this.state.clock.now();
    return jobStats(await this.state.store.stats(this.state.db.read, now), now);
  }
}
