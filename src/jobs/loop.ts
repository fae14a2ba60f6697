// The scheduler loop: a round, then sleep until something needs one (new jobs, a finished handler, a lease to renew,
// a deadline, the next poll), gathering handlers that finish close together into one round.
import { round } from "./round";
import { halfReturned, markClaimable, serial, wake, type EngineState } from "./state";

/** Runs rounds until the engine stops (JobEngine.start). */
export async function runLoop(s: EngineState): Promise<void> {
  while (!s.stopping) {
    s.woken = false;
    s.urgent = false;
    await serial(s, () => round(s, true));
    if (s.stopping) break;
    if (!s.woken) await sleep(s, idleDelay(s));
    // Let timers and sockets have a turn before the next round (a bare microtask chain would starve them); every
    // handler that this turn's I/O lets finish then joins that round.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!s.urgent && !s.stopping && worthGathering(s)) {
      // Most of a round's cost is the same for one settlement as for thirty (the commit's fsync, the claim's
      // statements), so when handlers are finishing one by one, a short wait lets one round settle and refill many.
      s.gathering = true;
      await sleep(s, Math.min(s.gatherMs, idleDelay(s)));
      s.gathering = false;
    }
  }
}

/**
 * Handlers returned and more are about to: of every kind that had one return, more are still running than have
 * returned. Measured against what is in flight rather than the kind's concurrency, because per-key limits can keep a
 * kind far below it (one busy account, eight at a time), and that kind's rounds deserve batching too.
 */
function worthGathering(s: EngineState): boolean {
  if (s.gatherMs === 0) return false;
  let returned = false;
  for (const k of s.kinds.values()) {
    if (k.returned === 0) continue;
    if (halfReturned(k)) return false;
    returned = true;
  }
  return returned;
}

/** Waits `ms`, or less if woken (see wake and wakeForCompletion in state.ts). */
function sleep(s: EngineState, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      s.wakeSleeper = null;
      resolve();
    }, ms);
    s.wakeSleeper = () => {
      clearTimeout(timer);
      resolve();
    };
  });
}

/** Until the next poll, maintenance, lease renewal, attempt timeout or skipped kind's re-check, whichever comes first. */
function idleDelay(s: EngineState): number {
  const now = s.clock.now();
  let next = now + s.pollMs;
  next = Math.min(next, s.nextMaintenanceAt);
  for (const k of s.kinds.values()) if (k.exhaustedUntil > now) next = Math.min(next, k.exhaustedUntil);
  for (const e of s.inflight) {
    if (!e.settled) next = Math.min(next, e.lastBeat + Math.floor(e.kind.leaseMs / 3), e.deadline);
  }
  // While rounds fail, nothing before the back-off ends can be done anyway (stop() still wakes the loop at once).
  return Math.max(0, Math.max(next, s.roundBackoff.retryAt) - now);
}

/** Jobs enqueued by other instances wake this one at once (when the store announces them), not at the next poll. */
export function listenForEnqueues(s: EngineState): void {
  const channel = s.store.wakeChannel;
  if (!channel) return;
  s.unlisten = s.db
    .listen(channel, (kind) => {
      const k = s.kinds.get(kind);
      if (!k || s.stopping) return;
      markClaimable(k);
      wake(s);
    })
    .catch((err) => {
      // Polling still finds the jobs, only later.
      s.logger.warn("could not listen for enqueued jobs; relying on polling", { err });
      return null;
    });
}
