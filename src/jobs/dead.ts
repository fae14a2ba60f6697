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
 * Runs in the transaction that hands a job back to the queue at shutdown (its attempt not counted), so an owner that
 * shows its work as started can say it waits again. It must only write to the database, and must not assume the job
 * is still queued afterwards: another worker may claim it as soon as this commits.
 */
export type HandedBackHook = (tx: Orm, job: { id: string; kind: string; payload: unknown }) => Promise<void> | void;

/** A job handed back as the round learned of it, payload still as stored. */
export type HandBack = { id: string; kind: string; payload: string };

/**
 * Runs each item's hook under a savepoint of its own. A hook that throws loses only its own writes: the job keeps its
 * new state and the failure is logged loudly (with the job id), rather than undoing the whole round and failing it
 * again every round after. Returns how many hooks failed.
 */
async function runOwnerHooks<T extends { id: string; kind: string }>(
  store: JobStore,
  tx: Orm,
  items: T[],
  run: (item: T) => ((tx: Orm) => Promise<void> | void) | undefined,
  failure: { logger: Logger; message: string },
): Promise<number> {
  let failed = 0;
  for (const item of items) {
    const hook = run(item);
    if (!hook) continue;
    try {
      await store.savepoint(tx, () => hook(tx));
    } catch (err) {
      if (err instanceof TransactionLost) throw err;
      failed++;
      failure.logger.error(failure.message, { job: item.id, kind: item.kind, err });
    }
  }
  return failed;
}

/** Settles the owners of jobs that died (a kind's onDead), each under its own savepoint (see runOwnerHooks). */
export function settleDeaths(store: JobStore, tx: Orm, deaths: Death[], hookOf: (kind: string) => DeadHook | undefined, logger: Logger): Promise<number> {
  return runOwnerHooks(store, tx, deaths, (d) => {
    const hook = hookOf(d.kind);
    if (!hook) return undefined;
    const job: DeadJob = { id: d.id, kind: d.kind, payload: parsePayload(d.payload), attempts: d.attempts, error: d.error };
    return (tx) => hook(tx, job);
  }, { logger, message: "a dead job's owner could not be settled" });
}

/** Tells the owners of jobs handed back at shutdown (a kind's onHandedBack), each under its own savepoint. */
export function settleHandBacks(store: JobStore, tx: Orm, backs: HandBack[], hookOf: (kind: string) => HandedBackHook | undefined, logger: Logger): Promise<number> {
  return runOwnerHooks(store, tx, backs, (b) => {
    const hook = hookOf(b.kind);
    if (!hook) return undefined;
    const job = { id: b.id, kind: b.kind, payload: parsePayload(b.payload) };
    return (tx) => hook(tx, job);
  }, { logger, message: "a handed-back job's owner could not be told" });
}
