// One attempt at a job, from dispatch to outcome: the handler's context, its deferred writes, heartbeats, timeouts,
// a lost lease, and the settlement it hands to the next round (which writes it; see round.ts).
import type { Logger } from "../kernel";
import { backoffDelay } from "./backoff";
import { JobAborted, PermanentFailure, RetryAfter } from "./errors";
import type { DeferredWrite, JobContext } from "./options";
import { markClaimable, wake, wakeForCompletion, write, type EngineState, type Inflight } from "./state";
import type { JobRecord, Settlement } from "./store";

const MAX_ERROR_CHARS = 2000;

/** An error as stored in last_error and logged: its name and message, cut to a bounded length. */
export function describeError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : `thrown: ${String(err)}`;
  return text.length > MAX_ERROR_CHARS ? text.slice(0, MAX_ERROR_CHARS) : text;
}

/** Starts the handler of a claimed job; its outcome reaches the next round through the pending list. */
export function dispatch(s: EngineState, job: JobRecord): void {
  const kind = s.kinds.get(job.kind);
  if (!kind) {
    // Claims only ask for registered kinds, so this is a bug; hand the job back rather than strand it.
    s.pending.push({ settlement: { outcome: "released", id: job.id, attempt: job.attempts }, writes: [], entry: null });
    s.logger.error("claimed a job of an unregistered kind", { job: job.id, kind: job.kind });
    return;
  }
  const entry: Inflight = {
    job,
    kind,
    attempt: job.attempts,
    controller: new AbortController(),
    writes: [],
    lastBeat: job.heartbeatAt ?? s.clock.now(),
    settled: false,
    done: Promise.resolve(),
    deadline: kind.timeoutMs > 0 ? (job.startedAt ?? s.clock.now()) + kind.timeoutMs : Number.POSITIVE_INFINITY,
  };
  kind.running++;
  s.inflight.add(entry);

  let payload: unknown;
  try {
    payload = JSON.parse(job.payload);
  } catch (err) {
    finish(s, entry, new PermanentFailure(`payload is not valid JSON: ${describeError(err)}`));
    release(s, entry);
    return;
  }
  const ctx = contextOf(s, entry, payload);
  entry.done = (async () => kind.handler(ctx))()
    .then(
      () => finish(s, entry, null),
      (err: unknown) => finish(s, entry, err ?? new Error("handler rejected without a reason")),
    )
    .finally(() => release(s, entry));
}

function contextOf(s: EngineState, entry: Inflight, payload: unknown): JobContext<never> {
  const { job } = entry;
  const logger = s.logger;
  let log: Logger | undefined;
  return {
    id: job.id,
    kind: job.kind,
    payload: payload as never,
    attempt: entry.attempt,
    maxAttempts: job.maxAttempts,
    signal: entry.controller.signal,
    shutdown: s.shuttingDown.signal,
    heartbeat: () => heartbeat(s, entry),
    deferWrite: (write) => deferWrite(s, entry, write),
    // Built on first use: most handlers never log, and at tens of thousands of jobs a second the child adds up.
    get log() {
      return (log ??= logger.child({ job: job.id, kind: job.kind, attempt: entry.attempt }));
    },
  };
}

/** The handler has returned: its slot is free for the next round to refill. */
function release(s: EngineState, entry: Inflight): void {
  if (!s.inflight.delete(entry)) return;
  entry.kind.running--;
  entry.kind.returned++;
  // Its key has a free slot again, which may be all that kept the kind's other due jobs from being claimed.
  markClaimable(entry.kind);
  wakeForCompletion(s, entry.kind);
}

function deferWrite(s: EngineState, entry: Inflight, write: DeferredWrite): void {
  if (entry.writes) {
    entry.writes.push(write);
    return;
  }
  if (s.closed) {
    s.logger.error("job write dropped: the engine has stopped", { job: entry.job.id, attempt: entry.attempt });
    return;
  }
  // The outcome has gone ahead without it (timeout, lost lease): the write still describes what happened, so it goes
  // out on its own in the next round.
  s.pending.push({ settlement: null, writes: [write], entry: null });
  wake(s);
}

/** Hands the attempt's outcome and deferred writes to the next round. */
export function queueOutcome(s: EngineState, entry: Inflight, settlement: Settlement | null): void {
  const writes = entry.writes ?? [];
  entry.writes = null;
  if (settlement || writes.length > 0) s.pending.push({ settlement, writes, entry });
}

/** Records the attempt's outcome for the next round; `err` null means success. */
function finish(s: EngineState, entry: Inflight, err: unknown): void {
  if (entry.settled) return;
  entry.settled = true;
  const settlement = outcomeOf(s, entry, err);
  queueOutcome(s, entry, settlement);
  reportOutcome(s, entry, settlement);
}

/** Success, a retry after the kind's backoff (or the handler's RetryAfter), or death once attempts are used up. */
export function outcomeOf(s: EngineState, entry: Inflight, err: unknown): Settlement {
  const { job, attempt } = entry;
  if (err === null) return { outcome: "succeeded", id: job.id, attempt };
  const error = describeError(err);
  if (err instanceof PermanentFailure || attempt >= job.maxAttempts) return { outcome: "dead", id: job.id, attempt, error };
  const delay = err instanceof RetryAfter ? err.delayMs : backoffDelay(entry.kind.backoff, attempt, s.random);
  return { outcome: "retry", id: job.id, attempt, runAt: s.clock.now() + delay, error };
}

export function reportOutcome(s: EngineState, entry: Inflight, outcome: Settlement): void {
  const fields = { job: entry.job.id, kind: entry.job.kind, attempt: entry.attempt };
  // A line for each job done too, so an operator's log shows the work (a render, a cut-out, a delivery), not only failures.
  if (outcome.outcome === "succeeded") s.logger.info("job succeeded", fields);
  else if (outcome.outcome === "dead") s.logger.error("job dead", { ...fields, maxAttempts: entry.job.maxAttempts, error: outcome.error });
  else if (outcome.outcome === "retry") {
    s.logger.warn("job failed; will retry", { ...fields, delayMs: Math.max(0, outcome.runAt - s.clock.now()), error: outcome.error });
  }
}

export function timeOut(s: EngineState, entry: Inflight): void {
  if (entry.settled) return;
  const reason = new JobAborted("timeout", `attempt timed out after ${entry.kind.timeoutMs} ms`);
  finish(s, entry, reason);
  entry.controller.abort(reason);
  // The slot stays taken until the handler really returns, so a handler ignoring its signal cannot oversubscribe.
  wake(s);
}

export function loseLease(s: EngineState, entry: Inflight): void {
  if (entry.settled) return;
  entry.settled = true;
  // No outcome to record (another worker owns the job now), but writes already deferred still describe the attempt.
  queueOutcome(s, entry, null);
  s.logger.warn("job lease lost; abandoning the attempt", { job: entry.job.id, attempt: entry.attempt });
  entry.controller.abort(new JobAborted("lease-lost", "the job's lease was taken over by another worker"));
}

/** Why a heartbeat of a settled attempt fails: the reason its signal aborted with, if it did. */
function abandoned(entry: Inflight): unknown {
  return entry.controller.signal.reason ?? new JobAborted("lease-lost", "the attempt is already settled");
}

async function heartbeat(s: EngineState, entry: Inflight): Promise<void> {
  if (entry.settled) throw abandoned(entry);
  const { held, now } = await write(s, async (tx) => {
    const now = s.clock.now();
    const lease = { id: entry.job.id, attempt: entry.attempt, leaseExpiresAt: now + entry.kind.leaseMs };
    return { held: (await s.store.renew(tx, s.owner, now, [lease])).length === 1, now };
  });
  if (held) {
    entry.lastBeat = Math.max(entry.lastBeat, now);
    return;
  }
  loseLease(s, entry);
  throw abandoned(entry);
}
