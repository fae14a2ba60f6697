// Stopping the engine: no more claims, running handlers get until a deadline to finish, the rest are aborted and their
// jobs handed back (queued again, attempt not counted), and a last round writes every outcome.
import { queueOutcome } from "./attempt";
import { JobAborted } from "./errors";
import type { StopResult } from "./options";
import { round } from "./round";
import { serial, wake, type EngineState } from "./state";

/** Waits for the handlers' promises, or `deadlineMs` of wall clock, whichever comes first. */
async function within(done: Promise<void>[], deadlineMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  await Promise.race([Promise.all(done), deadline]);
  clearTimeout(timer);
}

export async function shutdown(s: EngineState, deadlineMs: number): Promise<StopResult> {
  s.stopping = true;
  s.shuttingDown.abort(new JobAborted("shutdown", "the job engine is shutting down"));
  wake(s);
  const unlisten = await s.unlisten;
  if (unlisten) await unlisten().catch(() => undefined);
  if (s.loop) await s.loop;
  await s.roundTail;

  const live = [...s.inflight].filter((e) => !e.settled);
  if (live.length > 0 && deadlineMs > 0) await within(live.map((e) => e.done), deadlineMs);

  let released = 0;
  const reason = new JobAborted("shutdown", "the job engine is shutting down");
  for (const e of s.inflight) {
    if (e.settled) continue;
    e.settled = true;
    queueOutcome(s, e, { outcome: "released", id: e.job.id, attempt: e.attempt });
    e.controller.abort(reason);
    released++;
  }
  const finished = live.length - released;
  await serial(s, () => round(s, false));
  s.closed = true;
  if (s.pending.length > 0) {
    // The final write failed; those jobs keep their lease and are rescued by another worker once it expires.
    s.logger.error("job engine stopped with unrecorded outcomes", { count: s.pending.length });
  }
  // An instance that never ran jobs (serve --no-worker enqueues only) has no engine to speak of stopping.
  if (s.loop) s.logger.info("job engine stopped", { finished, released });
  return { finished, released };
}

/** Waits until every running handler has returned, then writes their outcomes (JobEngine.drain). */
export async function drain(s: EngineState): Promise<void> {
  for (;;) {
    const live = [...s.inflight].filter((e) => !e.settled).map((e) => e.done);
    if (live.length === 0) break;
    await Promise.all(live);
  }
  await serial(s, () => round(s, false));
}
