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
import { hostname } from "node:os";
import type { Logger } from "../kernel";
import type { Db, Orm } from "../db";
import type { Clock } from "../kernel";
import { backoffDelay, defaultBackoff, type Backoff } from "./backoff";
import { JobAborted, PermanentFailure, RetryAfter } from "./errors";
import { newJobId } from "./ids";
import { settleDeaths, type DeadHook, type Death } from "./dead";
import { RoundBackoff } from "./round-backoff";
import { SqliteJobStore } from "./sqlite";
import { PostgresJobStore } from "./postgres";
import {
  JOB_STATUSES,
  TransactionLost,
  type ClaimRequest,
  type JobFilter,
  type JobRecord,
  type JobStatus,
  type JobStore,
  type LeaseRenewal,
  type NewJob,
  type RescuedJob,
  type Settlement,
} from "./store";

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

function rescuedDeath(r: RescuedJob): Death {
  return { id: r.id, kind: r.kind, payload: r.payload, attempts: r.attempts, error: r.lastError };
}

/** What one scheduler round did (tick() reports only `claimed`). */
type RoundResult = { claimed: number; settled: number; rescued: number; pruned: number };
export type StopResult = { finished: number; released: number };
export type MaintenanceResult = { requeued: number; dead: number; pruned: number };
export type KindStats = Record<JobStatus, number> & { oldestQueuedAgeMs: number | null };
export type JobStats = {
  kinds: Record<string, KindStats>;
  totals: Record<JobStatus, number>;
  /** Age of the longest-waiting due job (queued, or failed and due for retry); null when none is waiting. */
  oldestQueuedAgeMs: number | null;
};

const DAY = 24 * 60 * 60 * 1000;
const MAX_ERROR_CHARS = 2000;
const PRUNE_CHUNK = 1000;
const PRUNE_CHUNKS_PER_PASS = 20;

type KindState = {
  kind: string;
  handler: JobHandler<never>;
  concurrency: number;
  keyConcurrency: number;
  maxAttempts: number;
  leaseMs: number;
  timeoutMs: number;
  backoff: Backoff;
  onDead?: DeadHook;
  /** Slots in use here, including attempts that timed out but whose handler has not returned yet. */
  running: number;
  /**
   * The last claim came back short (nothing due, or every key with due jobs at its limit), so claims skip this kind
   * until this clock time unless something that could change that happens first (see markClaimable).
   */
  exhaustedUntil: number;
  /** Counts markClaimable calls, so a round can tell whether its short claim is still the latest word. */
  claimableEpoch: number;
  /** Handlers that returned since the current round began, whose slots the next round can refill. */
  returned: number;
};

type Inflight = {
  job: JobRecord;
  kind: KindState;
  attempt: number;
  controller: AbortController;
  /** Writes deferred by the handler, until its outcome takes them (null from then on). */
  writes: DeferredWrite[] | null;
  /** Clock time of the last successful lease renewal. */
  lastBeat: number;
  /** The attempt's outcome is decided (or the lease is gone); whatever the handler does later is ignored. */
  settled: boolean;
  done: Promise<void>;
  /** Clock time at which the attempt times out (Infinity without a timeout). */
  deadline: number;
};

/** What the next round writes for one attempt: its outcome (null if already recorded or abandoned) and deferred writes. */
type Pending = { settlement: Settlement | null; writes: DeferredWrite[]; entry: Inflight | null };

// Engines in one process take turns on the database. SQLite's busy handler sleeps the whole thread, so if engine A
// held the write lock across an await while engine B (another connection, same thread) ran BEGIN IMMEDIATE, B would
// block the thread A needs to commit until busy_timeout fails. One engine per process never notices this queue.
let processTail: Promise<unknown> = Promise.resolve();
function inProcessTurn<T>(fn: () => Promise<T>): Promise<T> {
  const out = processTail.then(fn);
  processTail = out.catch(() => undefined);
  return out;
}

function describeError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : `thrown: ${String(err)}`;
  return text.length > MAX_ERROR_CHARS ? text.slice(0, MAX_ERROR_CHARS) : text;
}

function positiveInt(name: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${value}`);
  return value;
}

/** At least half of what the kind had in flight has returned since the round began (so: go on and settle it). */
function halfReturned(kind: KindState): boolean {
  return kind.returned >= kind.running;
}

export class JobEngine {
  readonly owner: string;
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly store: JobStore;
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly maintenanceMs: number;
  private readonly retainSucceededMs: number;
  private readonly retainDeadMs: number;
  private readonly gatherMs: number;
  private readonly random: () => number;
  private readonly observeDeath: ((kind: string) => void) | undefined;

  private readonly kinds = new Map<string, KindState>();
  private readonly inflight = new Set<Inflight>();
  private pending: Pending[] = [];
  private nextMaintenanceAt = Number.NEGATIVE_INFINITY;
  /** Rotates which kind gets first pick of the batch budget, so a busy kind cannot starve the rest. */
  private kindCursor = 0;

  private roundTail: Promise<unknown> = Promise.resolve();
  private loop: Promise<void> | null = null;
  private stopping = false;
  private stopped: Promise<StopResult> | null = null;
  /** Something happened since the current round began that the next round should see. */
  private woken = false;
  /** …and it should not wait for more handlers to finish (new jobs, a deadline, shutdown). */
  private urgent = false;
  /** The loop is waiting for more handlers to finish before a round (see gatherMs). */
  private gathering = false;
  /** The final round has run: nothing queued from now on would ever be written. */
  private closed = false;
  private wakeSleeper: (() => void) | null = null;
  /** Aborted when shutdown begins (JobContext.shutdown). */
  private readonly shuttingDown = new AbortController();
  private readonly leaseOverride: number | null;
  /** Rounds that failed to write (full disk, locked database) make the next ones wait, and are logged sparingly. */
  readonly roundBackoff: RoundBackoff;
  /** Ends the subscription to other instances' enqueue notices (PostgreSQL). */
  private unlisten: Promise<(() => Promise<void>) | null> | null = null;

  constructor(opts: JobEngineOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.logger = opts.logger.child({ component: "jobs" });
    this.owner = opts.owner ?? `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
    this.pollMs = positiveInt("pollMs", opts.pollMs ?? 1000);
    this.batchSize = positiveInt("batchSize", opts.batchSize ?? 256);
    this.maintenanceMs = positiveInt("maintenanceMs", opts.maintenanceMs ?? 5000);
    this.retainSucceededMs = positiveInt("retainSucceededMs", opts.retainSucceededMs ?? 7 * DAY, 0);
    this.retainDeadMs = positiveInt("retainDeadMs", opts.retainDeadMs ?? 30 * DAY, 0);
    this.gatherMs = positiveInt("gatherMs", opts.gatherMs ?? 1, 0);
    this.random = opts.random ?? Math.random;
    this.observeDeath = opts.observeDeath;
    this.store = opts.store ?? JobEngine.storeFor(opts.db);
    this.leaseOverride = opts.leaseMs == null ? null : positiveInt("leaseMs", opts.leaseMs);
    this.roundBackoff = new RoundBackoff(this.clock, this.logger);
  }

  /** The one place the engine looks at the dialect. */
  private static storeFor(db: Db): JobStore {
    if (db.dialect === "sqlite") return new SqliteJobStore();
    if (db.dialect === "postgres") return new PostgresJobStore();
    throw new Error(`no job store for database dialect ${String(db.dialect)}`);
  }

  /** Declares how to run jobs of `kind`. Register before enqueueing so the kind's maxAttempts is stored on new jobs. */
  register<P>(kind: string, handler: JobHandler<P>, opts: KindOptions = {}): this {
    if (!kind) throw new Error("job kind must be a non-empty string");
    if (this.kinds.has(kind)) throw new Error(`job kind ${kind} is already registered`);
    this.kinds.set(kind, {
      kind,
      handler: handler as JobHandler<never>,
      concurrency: positiveInt(`${kind}.concurrency`, opts.concurrency ?? 1),
      keyConcurrency: positiveInt(`${kind}.keyConcurrency`, opts.keyConcurrency ?? 1),
      maxAttempts: positiveInt(`${kind}.maxAttempts`, opts.maxAttempts ?? 5),
      leaseMs: positiveInt(`${kind}.leaseMs`, this.leaseOverride ?? opts.leaseMs ?? 30_000),
      timeoutMs: positiveInt(`${kind}.timeoutMs`, opts.timeoutMs ?? 15 * 60_000, 0),
      backoff: opts.backoff ?? defaultBackoff,
      onDead: opts.onDead,
      running: 0,
      exhaustedUntil: 0,
      claimableEpoch: 0,
      returned: 0,
    });
    return this;
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
  async enqueueMany(tx: Orm, items: EnqueueItem[]): Promise<EnqueueResult[]> {
    if (items.length === 0) return [];
    const now = this.clock.now();
    const rows: NewJob[] = items.map((item) => {
      if (!item.kind) throw new Error("job kind must be a non-empty string");
      if (item.dedupeKey != null && item.debounceKey != null) throw new Error("a job takes a dedupeKey or a debounceKey, not both");
      return {
        id: newJobId(now),
        kind: item.kind,
        payload: JSON.stringify(item.payload === undefined ? {} : item.payload),
        priority: Math.trunc(item.priority ?? 0),
        runAt: Math.trunc(item.runAt ?? now),
        maxAttempts: positiveInt("maxAttempts", item.maxAttempts ?? this.kinds.get(item.kind)?.maxAttempts ?? 5),
        dedupeKey: item.dedupeKey ?? null,
        debounceKey: item.debounceKey ?? null,
        concurrencyKey: item.concurrencyKey ?? null,
        createdAt: now,
      };
    });
    const out = await this.store.insert(tx, rows);
    const kinds = new Set(rows.map((r) => r.kind));
    this.db.afterCommit(() => {
      for (const kind of kinds) this.markClaimable(this.kinds.get(kind));
      this.wake();
    });
    return out;
  }

  /** Runs the scheduler loop until stop(): claims on wake-ups from in-process enqueues and finished handlers, else every pollMs. */
  start(): void {
    if (this.stopping) throw new Error("job engine is stopped");
    if (this.loop) return;
    this.loop = this.runLoop();
    this.listenForEnqueues();
  }

  /** Jobs enqueued by other instances wake this one at once (when the store announces them), not at the next poll. */
  private listenForEnqueues(): void {
    const channel = this.store.wakeChannel;
    if (!channel) return;
    this.unlisten = this.db
      .listen(channel, (kind) => {
        const k = this.kinds.get(kind);
        if (!k || this.stopping) return;
        this.markClaimable(k);
        this.wake();
      })
      .catch((err) => {
        // Polling still finds the jobs, only later.
        this.logger.warn("could not listen for enqueued jobs; relying on polling", { err });
        return null;
      });
  }

  /**
   * One explicit round: maintenance if due, record finished attempts, renew due leases, claim and dispatch.
   * Resolves, once the claimed handlers have been started, to how many jobs were claimed.
   */
  async tick(): Promise<number> {
    return (
      await this.serial(() => {
        // An explicit round looks at every kind, whatever earlier claims found.
        for (const k of this.kinds.values()) this.markClaimable(k);
        return this.round(true);
      })
    ).claimed;
  }

  /** Waits until every running handler has returned, then writes their outcomes. */
  async drain(): Promise<void> {
    for (;;) {
      const live = [...this.inflight].filter((e) => !e.settled).map((e) => e.done);
      if (live.length === 0) break;
      await Promise.all(live);
    }
    await this.serial(() => this.round(false));
  }

  /**
   * Graceful shutdown: stop claiming, give running handlers until `deadlineMs` (wall clock) to finish, then abort the
   * rest and hand their jobs back (queued again, attempt not counted) so another worker starts them without waiting.
   */
  stop(opts: { deadlineMs?: number } = {}): Promise<StopResult> {
    if (!this.stopped) this.stopped = this.shutdown(opts.deadlineMs ?? 30_000);
    return this.stopped;
  }

  /** Lease rescue and retention pruning now, whatever the schedule. */
  maintain(): Promise<MaintenanceResult> {
    return this.serial(async () => {
      const now = this.clock.now();
      const rescued = await this.write(async (tx) => {
        const found = await this.store.rescueExpired(tx, now);
        await this.settleDeaths(tx, found.filter((r) => r.status === "dead").map(rescuedDeath));
        return found;
      });
      this.reportRescued(rescued);
      this.observeDeaths(rescued.filter((r) => r.status === "dead"));
      const pruned = await this.prune(now);
      this.nextMaintenanceAt = now + this.maintenanceMs;
      return {
        requeued: rescued.filter((r) => r.status === "queued").length,
        dead: rescued.filter((r) => r.status === "dead").length,
        pruned,
      };
    });
  }

  listJobs(filter: JobFilter = {}): Promise<JobRecord[]> {
    return this.store.list(this.db.read, filter);
  }

  getJob(id: string): Promise<JobRecord | null> {
    return this.store.get(this.db.read, id);
  }

  /** Puts a dead job back in the queue with its attempts reset; false when the job is not dead. */
  async redrive(id: string): Promise<boolean> {
    // Durable: the operator is told the job is queued again.
    const ok = await this.write((tx) => this.store.redrive(tx, id, this.clock.now()), true);
    if (ok) {
      this.logger.info("job redriven", { job: id });
      for (const k of this.kinds.values()) this.markClaimable(k);
      this.wake();
    }
    return ok;
  }

  /** Counts by kind and status, and how long the oldest due job has waited (for metrics). */
  async stats(): Promise<JobStats> {
    const now = this.clock.now();
    const rows = await this.store.stats(this.db.read, now);
    const empty = (): KindStats => ({ queued: 0, running: 0, succeeded: 0, failed: 0, dead: 0, oldestQueuedAgeMs: null });
    const kinds: Record<string, KindStats> = {};
    const totals = { queued: 0, running: 0, succeeded: 0, failed: 0, dead: 0 } as Record<JobStatus, number>;
    for (const r of rows.counts) {
      if (!(JOB_STATUSES as readonly string[]).includes(r.status)) continue;
      const status = r.status as JobStatus;
      const k = (kinds[r.kind] ??= empty());
      k[status] += Number(r.count);
      totals[status] += Number(r.count);
    }
    let oldest: number | null = null;
    for (const r of rows.oldestDue) {
      const age = Math.max(0, now - Number(r.runAt));
      (kinds[r.kind] ??= empty()).oldestQueuedAgeMs = age;
      oldest = oldest === null ? age : Math.max(oldest, age);
    }
    return { kinds, totals, oldestQueuedAgeMs: oldest };
  }

  // ---- scheduling -------------------------------------------------------------------------------------------

  /** New work or a deadline: the next round should start without waiting for more handlers to finish. */
  private wake(): void {
    this.woken = true;
    this.urgent = true;
    this.interruptWait();
  }

  /** A handler of `kind` returned: wake the loop, but a gathering wait goes on until half the kind's handlers have. */
  private wakeForCompletion(kind: KindState): void {
    this.woken = true;
    if (!this.gathering || halfReturned(kind)) this.interruptWait();
  }

  private interruptWait(): void {
    const sleeper = this.wakeSleeper;
    if (sleeper) {
      this.wakeSleeper = null;
      sleeper();
    }
  }

  private async runLoop(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      this.urgent = false;
      await this.serial(() => this.round(true));
      if (this.stopping) break;
      if (!this.woken) await this.sleep(this.idleDelay());
      // Let timers and sockets have a turn before the next round (a bare microtask chain would starve them); every
      // handler that this turn's I/O lets finish then joins that round.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!this.urgent && !this.stopping && this.worthGathering()) {
        // Most of a round's cost is the same for one settlement as for thirty (the commit's fsync, the claim's
        // statements), so when handlers are finishing one by one, a short wait lets one round settle and refill many.
        this.gathering = true;
        await this.sleep(Math.min(this.gatherMs, this.idleDelay()));
        this.gathering = false;
      }
    }
  }

  /**
   * Handlers returned and more are about to: of every kind that had one return, more are still running than have
   * returned. Measured against what is in flight rather than the kind's concurrency, because per-key limits can keep a
   * kind far below it (one busy account, eight at a time), and that kind's rounds deserve batching too.
   */
  private worthGathering(): boolean {
    if (this.gatherMs === 0) return false;
    let returned = false;
    for (const k of this.kinds.values()) {
      if (k.returned === 0) continue;
      if (halfReturned(k)) return false;
      returned = true;
    }
    return returned;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wakeSleeper = null;
        resolve();
      }, ms);
      this.wakeSleeper = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Until the next poll, maintenance, lease renewal, attempt timeout or skipped kind's re-check, whichever comes first. */
  private idleDelay(): number {
    const now = this.clock.now();
    let next = now + this.pollMs;
    next = Math.min(next, this.nextMaintenanceAt);
    for (const k of this.kinds.values()) if (k.exhaustedUntil > now) next = Math.min(next, k.exhaustedUntil);
    for (const e of this.inflight) {
      if (!e.settled) next = Math.min(next, e.lastBeat + Math.floor(e.kind.leaseMs / 3), e.deadline);
    }
    // While rounds fail, nothing before the back-off ends can be done anyway (stop() still wakes the loop at once).
    return Math.max(0, Math.max(next, this.roundBackoff.retryAt) - now);
  }

  /** Rounds never overlap within an engine: slot counts and the pending list belong to one round at a time. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const out = this.roundTail.then(fn);
    this.roundTail = out.catch(() => undefined);
    return out;
  }

  // The engine's rows are claimed under row locks and every write is fenced, so a serializable snapshot would only add
  // retries (PostgreSQL); SQLite ignores the option. Its bookkeeping need not wait for the disk (TxOptions.durable): a
  // claim, outcome or renewal lost in a power cut only means an attempt runs again, which at-least-once allows, and
  // later commits cannot survive without it. Waiting would hold every round, and so every slot, for an fsync.
  private write<T>(fn: (tx: Orm) => Promise<T>, durable = false): Promise<T> {
    return inProcessTurn(() => this.db.tx(fn, { isolation: "read committed", durable }));
  }

  private claimRequests(now: number): ClaimRequest[] {
    const kinds = [...this.kinds.values()];
    if (kinds.length === 0) return [];
    const start = this.kindCursor++ % kinds.length;
    let budget = this.batchSize;
    const requests: ClaimRequest[] = [];
    for (let i = 0; i < kinds.length && budget > 0; i++) {
      const k = kinds[(start + i) % kinds.length]!;
      const free = k.concurrency - k.running;
      // A claim that came back short would again, until something changes; asking anyway costs statements every round,
      // and when every key with due jobs is at its limit, a walk through that whole backlog.
      if (free <= 0 || now < k.exhaustedUntil) continue;
      const limit = Math.min(free, budget);
      budget -= limit;
      requests.push({ kind: k.kind, limit, leaseMs: k.leaseMs, keyLimit: k.keyConcurrency });
    }
    return requests;
  }

  private async round(claim: boolean): Promise<RoundResult> {
    const result: RoundResult = { claimed: 0, settled: 0, rescued: 0, pruned: 0 };
    const active = claim && !this.stopping;
    // Timeouts run on the engine's clock, checked every round (the loop sleeps no longer than the next deadline).
    const start = this.clock.now();
    for (const e of this.inflight) if (!e.settled && start >= e.deadline) this.timeOut(e);
    if (active && this.roundBackoff.waitMs(start) > 0) return result;
    const batch = this.pending;
    this.pending = [];
    for (const k of this.kinds.values()) k.returned = 0;
    const requests = active ? this.claimRequests(start) : [];
    const epochs = requests.map((r) => this.kinds.get(r.kind)?.claimableEpoch);
    const maintain = active && start >= this.nextMaintenanceAt;
    const due = this.dueRenewals(start);
    if (!maintain && batch.length === 0 && requests.length === 0 && due.length === 0) return result;

    let outcome: {
      now: number;
      rescued: RescuedJob[];
      settlements: Settlement[];
      writeErrors: { pending: Pending; error: unknown; settlement: Settlement | null }[];
      held: string[];
      renewed: Map<Inflight, boolean>;
      claimed: JobRecord[];
      deaths: Death[];
    };
    try {
      outcome = await this.write(async (tx) => {
        // Read the clock once the write lock is ours, so leases start when the claim actually commits.
        const now = this.clock.now();
        const rescued = maintain ? await this.store.rescueExpired(tx, now) : [];
        const failed = await this.applyWrites(tx, batch);
        const settlements: Settlement[] = [];
        const writeErrors: { pending: Pending; error: unknown; settlement: Settlement | null }[] = [];
        for (const p of batch) {
          let settlement = p.settlement;
          if (failed.has(p)) {
            const error = failed.get(p);
            if (settlement?.outcome === "succeeded" && p.entry) settlement = this.outcomeOf(p.entry, error);
            writeErrors.push({ pending: p, error, settlement });
          }
          if (settlement) settlements.push(settlement);
        }
        const held = settlements.length ? await this.store.settle(tx, this.owner, now, settlements) : [];
        const deaths = [...rescued.filter((r) => r.status === "dead").map(rescuedDeath), ...this.deathsOf(batch, settlements, held)];
        await this.settleDeaths(tx, deaths);
        const renewed = new Map<Inflight, boolean>();
        if (due.length) {
          // Leases run from now, not from when the round began waiting for the lock.
          const leases: LeaseRenewal[] = due.map((e) => ({ id: e.job.id, attempt: e.attempt, leaseExpiresAt: now + e.kind.leaseMs }));
          const ok = new Set(await this.store.renew(tx, this.owner, now, leases));
          for (const e of due) renewed.set(e, ok.has(e.job.id));
        }
        const claimed = requests.length ? await this.store.claim(tx, this.owner, now, requests) : [];
        return { now, rescued, settlements, writeErrors, held, renewed, claimed, deaths };
      });
    } catch (err) {
      // Nothing was written: keep the outcomes and writes for the next round; unsettled jobs stay leased meanwhile.
      this.pending = batch.concat(this.pending);
      this.roundBackoff.failed(err);
      return result;
    }
    this.roundBackoff.succeeded();

    const { now, settlements } = outcome;
    if (maintain) this.nextMaintenanceAt = now + this.maintenanceMs;
    this.reportRescued(outcome.rescued);
    this.observeDeaths(outcome.deaths);
    result.rescued = outcome.rescued.length;

    for (const { pending, error, settlement } of outcome.writeErrors) {
      const job = pending.entry?.job;
      this.logger.error("job writes failed and were rolled back", {
        job: job?.id ?? pending.settlement?.id,
        kind: job?.kind,
        attempt: pending.entry?.attempt ?? pending.settlement?.attempt,
        error: describeError(error),
      });
      if (settlement && pending.entry && settlement !== pending.settlement) this.reportOutcome(pending.entry, settlement);
    }

    result.settled = outcome.held.length;
    if (outcome.held.length < settlements.length) {
      const held = new Set(outcome.held);
      for (const s of settlements) {
        if (!held.has(s.id)) {
          this.logger.warn("job outcome discarded: lease was lost before it could be recorded", {
            job: s.id,
            attempt: s.attempt,
            outcome: s.outcome,
          });
        }
      }
    }

    for (const [entry, ok] of outcome.renewed) {
      if (ok) entry.lastBeat = now;
      else this.loseLease(entry);
    }

    for (const job of outcome.claimed) this.dispatch(job);
    result.claimed = outcome.claimed.length;
    if (requests.length) {
      const got = new Map<string, number>();
      for (const job of outcome.claimed) got.set(job.kind, (got.get(job.kind) ?? 0) + 1);
      requests.forEach((r, i) => {
        const k = this.kinds.get(r.kind);
        // Unless something freed a slot or added jobs meanwhile. Until pollMs has passed: the backstop for jobs
        // enqueued elsewhere or coming due, as for an idle engine.
        if (k && (got.get(r.kind) ?? 0) < r.limit && k.claimableEpoch === epochs[i]) k.exhaustedUntil = now + this.pollMs;
      });
    }

    if (maintain) result.pruned = await this.prune(now);
    return result;
  }

  /**
   * Runs the handlers' deferred writes ahead of the settlements they go with; returns the attempts whose writes failed
   * (and were undone). All share one savepoint: a savepoint copies every page it first touches into the statement
   * journal, and one per attempt cost more than the writes themselves. Should that fail, each attempt's writes are
   * redone under a savepoint of their own, so only a failing attempt loses its writes.
   */
  private async applyWrites(tx: Orm, batch: Pending[]): Promise<Map<Pending, unknown>> {
    const failed = new Map<Pending, unknown>();
    const withWrites = batch.filter((p) => p.writes.length > 0);
    if (withWrites.length === 0) return failed;
    const run = async (p: Pending) => {
      for (const write of p.writes) await write(tx);
    };
    try {
      await this.store.savepoint(tx, async () => {
        for (const p of withWrites) await run(p);
      });
      return failed;
    } catch (error) {
      if (error instanceof TransactionLost) throw error;
      if (withWrites.length === 1) {
        failed.set(withWrites[0]!, error);
        return failed;
      }
    }
    for (const p of withWrites) {
      try {
        await this.store.savepoint(tx, () => run(p));
      } catch (error) {
        if (error instanceof TransactionLost) throw error;
        failed.set(p, error);
      }
    }
    return failed;
  }

  /** The settlements that killed their job and were recorded (the lease was still held), with what the hook needs. */
  private deathsOf(batch: Pending[], settlements: Settlement[], held: string[]): Death[] {
    const deadIds = new Set(settlements.filter((s) => s.outcome === "dead").map((s) => s.id));
    if (deadIds.size === 0) return [];
    const recorded = new Set(held);
    const deaths: Death[] = [];
    for (const s of settlements) {
      if (s.outcome !== "dead" || !recorded.has(s.id)) continue;
      const job = batch.find((p) => p.entry?.job.id === s.id)?.entry?.job;
      if (job) deaths.push({ id: job.id, kind: job.kind, payload: job.payload, attempts: s.attempt, error: s.error });
    }
    return deaths;
  }

  private observeDeaths(deaths: { kind: string }[]): void {
    if (this.observeDeath) for (const d of deaths) this.observeDeath(d.kind);
  }

  private settleDeaths(tx: Orm, deaths: Death[]): Promise<number> {
    if (deaths.length === 0) return Promise.resolve(0);
    return settleDeaths(this.store, tx, deaths, (kind) => this.kinds.get(kind)?.onDead, this.logger);
  }

  /** Attempts whose last renewal is a third of a lease old: renewing then leaves two thirds as slack for a slow round. */
  private dueRenewals(now: number): Inflight[] {
    const due: Inflight[] = [];
    for (const e of this.inflight) {
      if (!e.settled && now - e.lastBeat >= Math.floor(e.kind.leaseMs / 3)) due.push(e);
    }
    return due;
  }

  private async prune(now: number): Promise<number> {
    let total = 0;
    const plan: ["succeeded" | "dead", number][] = [
      ["succeeded", now - this.retainSucceededMs],
      ["dead", now - this.retainDeadMs],
    ];
    for (const [status, before] of plan) {
      // Small chunks, one transaction each, so pruning a large backlog never holds the write lock for long.
      for (let i = 0; i < PRUNE_CHUNKS_PER_PASS; i++) {
        try {
          const n = await this.write((tx) => this.store.prune(tx, status, before, PRUNE_CHUNK));
          total += n;
          if (n < PRUNE_CHUNK) break;
        } catch (err) {
          this.logger.error("job pruning failed", { err, status });
          break;
        }
      }
    }
    if (total > 0) this.logger.info("jobs pruned", { count: total });
    return total;
  }

  private reportRescued(rescued: RescuedJob[]): void {
    for (const r of rescued) {
      if (r.status === "queued") this.markClaimable(this.kinds.get(r.kind));
      const fields = { job: r.id, kind: r.kind, attempts: r.attempts, reason: r.lastError };
      if (r.status === "dead") this.logger.error("job dead: lease expired on its last attempt", fields);
      else this.logger.warn("job lease expired; queued again", fields);
    }
  }

  // ---- running handlers -------------------------------------------------------------------------------------

  private dispatch(job: JobRecord): void {
    const kind = this.kinds.get(job.kind);
    if (!kind) {
      // Claims only ask for registered kinds, so this is a bug; hand the job back rather than strand it.
      this.pending.push({ settlement: { outcome: "released", id: job.id, attempt: job.attempts }, writes: [], entry: null });
      this.logger.error("claimed a job of an unregistered kind", { job: job.id, kind: job.kind });
      return;
    }
    const entry: Inflight = {
      job,
      kind,
      attempt: job.attempts,
      controller: new AbortController(),
      writes: [],
      lastBeat: job.heartbeatAt ?? this.clock.now(),
      settled: false,
      done: Promise.resolve(),
      deadline: kind.timeoutMs > 0 ? (job.startedAt ?? this.clock.now()) + kind.timeoutMs : Number.POSITIVE_INFINITY,
    };
    kind.running++;
    this.inflight.add(entry);

    let payload: unknown;
    try {
      payload = JSON.parse(job.payload);
    } catch (err) {
      this.finish(entry, new PermanentFailure(`payload is not valid JSON: ${describeError(err)}`));
      this.release(entry);
      return;
    }
    const logger = this.logger;
    let log: Logger | undefined;
    const ctx: JobContext<never> = {
      id: job.id,
      kind: job.kind,
      payload: payload as never,
      attempt: entry.attempt,
      maxAttempts: job.maxAttempts,
      signal: entry.controller.signal,
      shutdown: this.shuttingDown.signal,
      heartbeat: () => this.heartbeat(entry),
      deferWrite: (write) => this.deferWrite(entry, write),
      // Built on first use: most handlers never log, and at tens of thousands of jobs a second the child adds up.
      get log() {
        return (log ??= logger.child({ job: job.id, kind: job.kind, attempt: entry.attempt }));
      },
    };
    entry.done = (async () => kind.handler(ctx))()
      .then(
        () => this.finish(entry, null),
        (err: unknown) => this.finish(entry, err ?? new Error("handler rejected without a reason")),
      )
      .finally(() => this.release(entry));
  }

  private release(entry: Inflight): void {
    if (!this.inflight.delete(entry)) return;
    entry.kind.running--;
    entry.kind.returned++;
    // Its key has a free slot again, which may be all that kept the kind's other due jobs from being claimed.
    this.markClaimable(entry.kind);
    this.wakeForCompletion(entry.kind);
  }

  private markClaimable(kind: KindState | undefined): void {
    if (!kind) return;
    kind.exhaustedUntil = 0;
    kind.claimableEpoch++;
  }

  private deferWrite(entry: Inflight, write: DeferredWrite): void {
    if (entry.writes) {
      entry.writes.push(write);
      return;
    }
    if (this.closed) {
      this.logger.error("job write dropped: the engine has stopped", { job: entry.job.id, attempt: entry.attempt });
      return;
    }
    // The outcome has gone ahead without it (timeout, lost lease): the write still describes what happened, so it goes
    // out on its own in the next round.
    this.pending.push({ settlement: null, writes: [write], entry: null });
    this.wake();
  }

  /** Hands the attempt's outcome and deferred writes to the next round. */
  private queueOutcome(entry: Inflight, settlement: Settlement | null): void {
    const writes = entry.writes ?? [];
    entry.writes = null;
    if (settlement || writes.length > 0) this.pending.push({ settlement, writes, entry });
  }

  /** Records the attempt's outcome for the next round; `err` null means success. */
  private finish(entry: Inflight, err: unknown): void {
    if (entry.settled) return;
    entry.settled = true;
    const settlement = this.outcomeOf(entry, err);
    this.queueOutcome(entry, settlement);
    this.reportOutcome(entry, settlement);
  }

  private outcomeOf(entry: Inflight, err: unknown): Settlement {
    const { job, attempt } = entry;
    if (err === null) return { outcome: "succeeded", id: job.id, attempt };
    const error = describeError(err);
    if (err instanceof PermanentFailure || attempt >= job.maxAttempts) return { outcome: "dead", id: job.id, attempt, error };
    const delay = err instanceof RetryAfter ? err.delayMs : backoffDelay(entry.kind.backoff, attempt, this.random);
    return { outcome: "retry", id: job.id, attempt, runAt: this.clock.now() + delay, error };
  }

  private reportOutcome(entry: Inflight, s: Settlement): void {
    const fields = { job: entry.job.id, kind: entry.job.kind, attempt: entry.attempt };
    if (s.outcome === "dead") this.logger.error("job dead", { ...fields, maxAttempts: entry.job.maxAttempts, error: s.error });
    else if (s.outcome === "retry") {
      this.logger.warn("job failed; will retry", { ...fields, delayMs: Math.max(0, s.runAt - this.clock.now()), error: s.error });
    }
  }

  private timeOut(entry: Inflight): void {
    if (entry.settled) return;
    const reason = new JobAborted("timeout", `attempt timed out after ${entry.kind.timeoutMs} ms`);
    this.finish(entry, reason);
    entry.controller.abort(reason);
    // The slot stays taken until the handler really returns, so a handler ignoring its signal cannot oversubscribe.
    this.wake();
  }

  private loseLease(entry: Inflight): void {
    if (entry.settled) return;
    entry.settled = true;
    // No outcome to record (another worker owns the job now), but writes already deferred still describe the attempt.
    this.queueOutcome(entry, null);
    this.logger.warn("job lease lost; abandoning the attempt", { job: entry.job.id, attempt: entry.attempt });
    entry.controller.abort(new JobAborted("lease-lost", "the job's lease was taken over by another worker"));
  }

  private async heartbeat(entry: Inflight): Promise<void> {
    if (entry.settled) {
      throw entry.controller.signal.reason ?? new JobAborted("lease-lost", "the attempt is already settled");
    }
    const { held, now } = await this.write(async (tx) => {
      const now = this.clock.now();
      const lease = { id: entry.job.id, attempt: entry.attempt, leaseExpiresAt: now + entry.kind.leaseMs };
      return { held: (await this.store.renew(tx, this.owner, now, [lease])).length === 1, now };
    });
    if (held) {
      entry.lastBeat = Math.max(entry.lastBeat, now);
      return;
    }
    this.loseLease(entry);
    throw entry.controller.signal.reason ?? new JobAborted("lease-lost", "the attempt is already settled");
  }

  private async shutdown(deadlineMs: number): Promise<StopResult> {
    this.stopping = true;
    this.shuttingDown.abort(new JobAborted("shutdown", "the job engine is shutting down"));
    this.wake();
    const unlisten = await this.unlisten;
    if (unlisten) await unlisten().catch(() => undefined);
    if (this.loop) await this.loop;
    await this.roundTail;

    const live = [...this.inflight].filter((e) => !e.settled);
    if (live.length > 0 && deadlineMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadlineMs);
      });
      await Promise.race([Promise.all(live.map((e) => e.done)), deadline]);
      clearTimeout(timer);
    }

    let released = 0;
    const reason = new JobAborted("shutdown", "the job engine is shutting down");
    for (const e of this.inflight) {
      if (e.settled) continue;
      e.settled = true;
      this.queueOutcome(e, { outcome: "released", id: e.job.id, attempt: e.attempt });
      e.controller.abort(reason);
      released++;
    }
    const finished = live.length - released;
    await this.serial(() => this.round(false));
    this.closed = true;
    if (this.pending.length > 0) {
      // The final write failed; those jobs keep their lease and are rescued by another worker once it expires.
      this.logger.error("job engine stopped with unrecorded outcomes", { count: this.pending.length });
    }
    this.logger.info("job engine stopped", { finished, released });
    return { finished, released };
  }
}
