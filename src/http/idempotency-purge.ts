// The recurring job that deletes Idempotency-Keys past their 24 h: each run queues the next, in the transaction that
// records its own outcome, so the chain survives crashes; every start makes sure one is queued, in case it was lost.
import type { Db, Orm } from "../db";
import type { Clock } from "../kernel";
import type { JobEngine } from "../jobs";
import type { Idempotency } from "./idempotency";

export const IDEMPOTENCY_PURGE_JOB = "idempotency.purge";
/** How often keys are purged: an expired key is replay-proof already (start() ignores it), so this only bounds the table. */
export const IDEMPOTENCY_PURGE_EVERY_MS = 60 * 60 * 1000;
/** Collapses every queued purge into one (a running purge does not absorb the next, which it queues itself). */
const DEBOUNCE_KEY = "idempotency-purge";

export function registerIdempotencyPurge(deps: { jobs: JobEngine; db: Db; clock: Clock; idempotency: Idempotency }) {
  const { jobs, db, clock, idempotency } = deps;
  const queueNext = (tx: Orm, runAt: number) =>
    jobs.enqueue(tx, IDEMPOTENCY_PURGE_JOB, {}, { runAt, debounceKey: DEBOUNCE_KEY }).then(() => undefined);

  jobs.register(
    IDEMPOTENCY_PURGE_JOB,
    async (job) => {
      const purged = await idempotency.prune();
      if (purged > 0) job.log.info("idempotency keys purged", { count: purged });
      job.deferWrite((tx) => queueNext(tx, clock.now() + IDEMPOTENCY_PURGE_EVERY_MS));
    },
    {
      maxAttempts: 5,
      // A purge that kept failing (a full disk, say) still queues the next, or purging would stop until a restart.
      onDead: (tx) => queueNext(tx, clock.now() + IDEMPOTENCY_PURGE_EVERY_MS),
    },
  );

  return {
    /**
     * Makes sure a purge is queued, within the hour (one already queued keeps the earlier time); called as the service
     * starts, in case a chain was lost. Not at once: a start would otherwise always begin with a job to run.
     */
    schedule(): Promise<void> {
      return db.tx((tx) => queueNext(tx, clock.now() + IDEMPOTENCY_PURGE_EVERY_MS));
    },
  };
}
