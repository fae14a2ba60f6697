// Settling the owner of a job that went dead: a kind's onDead hook runs in the very transaction that marks the job
// dead, so a video or a product can never be left waiting on work that will not happen again.
import type { Orm } from "../db";
import type { Logger } from "../kernel";
import { TransactionLost, type JobStore } from "./store";

/** What a kind's onDead hook is told about the job that died. */
export type DeadJob = {
  id: string;
  kind: string;
  /** The parsed payload; undefined when the stored text was not JSON (such a job dies at once). */
  payload: unknown;
  attempts: number;
  error: string;
};

/**
 * A job's last error as a customer may read it: a lease that ran out names the worker (host, process, id), which is
 * the operator's business (it stays in the job's last_error and the log); the customer is told the server stopped.
 */
export function customerError(error: string): string {
  const lease = /^lease expired: worker .* stopped heartbeating during attempt (\d+)$/.exec(error);
  return lease ? `the server working on it stopped before it finished (attempt ${lease[1]})` : error;
}

/**
 * Runs in the transaction that marks the job dead (its last attempt failed, or its lease ran out on the last attempt),
 * so the owner is settled exactly when the job dies, once. It must only write to the database.
 */
export type DeadHook = (tx: Orm, job: DeadJob) => Promise<void> | void;

/** A death as the round learned of it, payload still as stored. */
export type Death = { id: string; kind: string; payload: string; attempts: number; error: string };

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Runs each death's hook under a savepoint of its own. A hook that throws loses only its own writes: the job stays dead
 * and the failure is logged loudly (with the job id, for `jobs` redrive), rather than undoing the whole round and
 * failing it again every round after.
 */
export async function settleDeaths(
  store: JobStore,
  tx: Orm,
  deaths: Death[],
  hookOf: (kind: string) => DeadHook | undefined,
  logger: Logger,
): Promise<number> {
  let failed = 0;
  for (const d of deaths) {
    const hook = hookOf(d.kind);
    if (!hook) continue;
    const job: DeadJob = { id: d.id, kind: d.kind, payload: parsePayload(d.payload), attempts: d.attempts, error: d.error };
    try {
      await store.savepoint(tx, () => hook(tx, job));
    } catch (err) {
      if (err instanceof TransactionLost) throw err;
      failed++;
      logger.error("a dead job's owner could not be settled", { job: d.id, kind: d.kind, err });
    }
  }
  return failed;
}
