// The job engine's state, which the modules making up the engine (round, attempt, loop, maintenance, shutdown) take
// explicitly: the settings it was built with, the registered kinds, the attempts in flight and the loop's flags; with
// the few moves every module needs (wake the loop, mark a kind claimable, take a turn at the database).
import { hostname } from "node:os";
import type { Db, Orm } from "../db";
import type { Clock, Logger } from "../kernel";
import { defaultBackoff, type Backoff } from "./backoff";
import type { DeadHook, HandedBackHook } from "./dead";
import { positiveInt, type DeferredWrite, type JobEngineOptions, type JobHandler, type KindOptions, type StopResult } from "./options";
import { RoundBackoff } from "./round-backoff";
import { jobStoreFor, type JobRecord, type JobStore, type Settlement } from "./store";

export type KindState = {
  kind: string;
  handler: JobHandler<never>;
  concurrency: number;
  keyConcurrency: number;
  maxAttempts: number;
  leaseMs: number;
  timeoutMs: number;
  backoff: Backoff;
  onDead?: DeadHook;
  onHandedBack?: HandedBackHook;
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

export type Inflight = {
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
export type Pending = { settlement: Settlement | null; writes: DeferredWrite[]; entry: Inflight | null };

export type EngineState = {
  /** Lease owner name; unique per engine: `host:pid:id` unless given. */
  readonly owner: string;
  /** This host's name, which owners start with: a dead process of this host gives its leases up early (maintenance.ts). */
  readonly host: string;
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly store: JobStore;
  readonly pollMs: number;
  readonly batchSize: number;
  readonly maintenanceMs: number;
  readonly retainSucceededMs: number;
  readonly retainDeadMs: number;
  readonly gatherMs: number;
  readonly random: () => number;
  readonly observeDeath: ((kind: string) => void) | undefined;
  readonly leaseOverride: number | null;

  readonly kinds: Map<string, KindState>;
  readonly inflight: Set<Inflight>;
  pending: Pending[];
  nextMaintenanceAt: number;
  /** Rotates which kind gets first pick of the batch budget, so a busy kind cannot starve the rest. */
  kindCursor: number;

  roundTail: Promise<unknown>;
  loop: Promise<void> | null;
  stopping: boolean;
  stopped: Promise<StopResult> | null;
  /** Something happened since the current round began that the next round should see. */
  woken: boolean;
  /** …and it should not wait for more handlers to finish (new jobs, a deadline, shutdown). */
  urgent: boolean;
  /** The loop is waiting for more handlers to finish before a round (see gatherMs). */
  gathering: boolean;
  /** The final round has run: nothing queued from now on would ever be written. */
  closed: boolean;
  wakeSleeper: (() => void) | null;
  /** Aborted when shutdown begins (JobContext.shutdown). */
  readonly shuttingDown: AbortController;
  /** Rounds that failed to write (full disk, locked database) make the next ones wait, and are logged sparingly. */
  readonly roundBackoff: RoundBackoff;
  /** Ends the subscription to other instances' enqueue notices (PostgreSQL). */
  unlisten: Promise<(() => Promise<void>) | null> | null;
};

const DAY = 24 * 60 * 60 * 1000;

export function newEngineState(opts: JobEngineOptions): EngineState {
  const logger = opts.logger.child({ component: "jobs" });
  return {
    owner: opts.owner ?? `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`, // read back by ownerProcess
    host: hostname(),
    db: opts.db,
    clock: opts.clock,
    logger,
    store: opts.store ?? jobStoreFor(opts.db),
    pollMs: positiveInt("pollMs", opts.pollMs ?? 1000),
    batchSize: positiveInt("batchSize", opts.batchSize ?? 256),
    maintenanceMs: positiveInt("maintenanceMs", opts.maintenanceMs ?? 5000),
    retainSucceededMs: positiveInt("retainSucceededMs", opts.retainSucceededMs ?? 7 * DAY, 0),
    retainDeadMs: positiveInt("retainDeadMs", opts.retainDeadMs ?? 30 * DAY, 0),
    gatherMs: positiveInt("gatherMs", opts.gatherMs ?? 1, 0),
    random: opts.random ?? Math.random,
    observeDeath: opts.observeDeath,
    leaseOverride: opts.leaseMs == null ? null : positiveInt("leaseMs", opts.leaseMs),
    kinds: new Map(),
    inflight: new Set(),
    pending: [],
    nextMaintenanceAt: Number.NEGATIVE_INFINITY,
    kindCursor: 0,
    roundTail: Promise.resolve(),
    loop: null,
    stopping: false,
    stopped: null,
    woken: false,
    urgent: false,
    gathering: false,
    closed: false,
    wakeSleeper: null,
    shuttingDown: new AbortController(),
    roundBackoff: new RoundBackoff(opts.clock, logger),
    unlisten: null,
  };
}

/** Declares how to run jobs of `kind` (JobEngine.register). */
export function registerKind(s: EngineState, kind: string, handler: JobHandler<never>, opts: KindOptions): void {
  if (!kind) throw new Error("job kind must be a non-empty string");
  if (s.kinds.has(kind)) throw new Error(`job kind ${kind} is already registered`);
  s.kinds.set(kind, {
    kind,
    handler,
    concurrency: positiveInt(`${kind}.concurrency`, opts.concurrency ?? 1),
    keyConcurrency: positiveInt(`${kind}.keyConcurrency`, opts.keyConcurrency ?? 1),
    maxAttempts: positiveInt(`${kind}.maxAttempts`, opts.maxAttempts ?? 5),
    leaseMs: positiveInt(`${kind}.leaseMs`, s.leaseOverride ?? opts.leaseMs ?? 30_000),
    timeoutMs: positiveInt(`${kind}.timeoutMs`, opts.timeoutMs ?? 15 * 60_000, 0),
    backoff: opts.backoff ?? defaultBackoff,
    onDead: opts.onDead,
    onHandedBack: opts.onHandedBack,
    running: 0,
    exhaustedUntil: 0,
    claimableEpoch: 0,
    returned: 0,
  });
}

/** Something may have made `kind` claimable again (a freed slot, new or rescued jobs): its next claim asks again. */
export function markClaimable(kind: KindState | undefined): void {
  if (!kind) return;
  kind.exhaustedUntil = 0;
  kind.claimableEpoch++;
}

/** New work or a deadline: the next round should start without waiting for more handlers to finish. */
export function wake(s: EngineState): void {
  s.woken = true;
  s.urgent = true;
  interruptWait(s);
}

/** At least half of what the kind had in flight has returned since the round began (so: go on and settle it). */
export function halfReturned(kind: KindState): boolean {
  return kind.returned >= kind.running;
}

/** A handler of `kind` returned: wake the loop, but a gathering wait goes on until half the kind's handlers have. */
export function wakeForCompletion(s: EngineState, kind: KindState): void {
  s.woken = true;
  if (!s.gathering || halfReturned(kind)) interruptWait(s);
}

function interruptWait(s: EngineState): void {
  const sleeper = s.wakeSleeper;
  if (sleeper) {
    s.wakeSleeper = null;
    sleeper();
  }
}

/** Rounds never overlap within an engine: slot counts and the pending list belong to one round at a time. */
export function serial<T>(s: EngineState, fn: () => Promise<T>): Promise<T> {
  const out = s.roundTail.then(fn);
  s.roundTail = out.catch(() => undefined);
  return out;
}

// Engines in one process take turns on the database. SQLite's busy handler sleeps the whole thread, so if engine A
// held the write lock across an await while engine B (another connection, same thread) ran BEGIN IMMEDIATE, B would
// block the thread A needs to commit until busy_timeout fails. One engine per process never notices this queue.
let processTail: Promise<unknown> = Promise.resolve();
function inProcessTurn<T>(fn: () => Promise<T>): Promise<T> {
  const out = processTail.then(fn);
  processTail = out.catch(() => undefined);
  return out;
}

// The engine's rows are claimed under row locks and every write is fenced, so a serializable snapshot would only add
// retries (PostgreSQL); SQLite ignores the option. Its bookkeeping need not wait for the disk (TxOptions.durable): a
// claim, outcome or renewal lost in a power cut only means an attempt runs again, which at-least-once allows, and
// later commits cannot survive without it. Waiting would hold every round, and so every slot, for an fsync.
export function write<T>(s: EngineState, fn: (tx: Orm) => Promise<T>, durable = false): Promise<T> {
  return inProcessTurn(() => s.db.tx(fn, { isolation: "read committed", durable }));
}

/** The host and pid of a lease owner named as an engine names itself (`host:pid:id`), or null for another name. */
export function ownerProcess(owner: string): { host: string; pid: number } | null {
  const [host, pidText, id] = owner.split(":");
  const pid = Number(pidText);
  return host && id && Number.isSafeInteger(pid) && pid > 0 ? { host, pid } : null;
}
