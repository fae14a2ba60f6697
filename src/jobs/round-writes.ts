// What a round writes for the attempts that finished since the last one: the writes their handlers deferred, then
// their settlements (a success whose writes failed becomes a failure), and which of them killed their job.
import type { Orm } from "../db";
import { outcomeOf } from "./attempt";
import type { Death, HandBack } from "./dead";
import type { EngineState, Pending } from "./state";
import { TransactionLost, type JobRecord, type Settlement } from "./store";

/** An attempt whose deferred writes failed and were undone, with the settlement it ends up with. */
export type WriteError = { pending: Pending; error: unknown; settlement: Settlement | null };

/**
 * Runs the handlers' deferred writes ahead of the settlements they go with; returns the attempts whose writes failed
 * (and were undone). All share one savepoint: a savepoint copies every page it first touches into the statement
 * journal, and one per attempt cost more than the writes themselves. Should that fail, each attempt's writes are
 * redone under a savepoint of their own, so only a failing attempt loses its writes.
 */
async function applyWrites(s: EngineState, tx: Orm, batch: Pending[]): Promise<Map<Pending, unknown>> {
  const failed = new Map<Pending, unknown>();
  const withWrites = batch.filter((p) => p.writes.length > 0);
  if (withWrites.length === 0) return failed;
  const run = async (p: Pending) => {
    for (const write of p.writes) await write(tx);
  };
  try {
    await s.store.savepoint(tx, async () => {
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
      await s.store.savepoint(tx, () => run(p));
    } catch (error) {
      if (error instanceof TransactionLost) throw error;
      failed.set(p, error);
    }
  }
  return failed;
}

/** Applies the batch's deferred writes and returns the settlements to record, with the attempts whose writes failed. */
export async function settlementsOf(
  s: EngineState,
  tx: Orm,
  batch: Pending[],
): Promise<{ settlements: Settlement[]; writeErrors: WriteError[] }> {
  const failed = await applyWrites(s, tx, batch);
  const settlements: Settlement[] = [];
  const writeErrors: WriteError[] = [];
  for (const p of batch) {
    let settlement = p.settlement;
    if (failed.has(p)) {
      const error = failed.get(p);
      if (settlement?.outcome === "succeeded" && p.entry) settlement = outcomeOf(s, p.entry, error);
      writeErrors.push({ pending: p, error, settlement });
    }
    if (settlement) settlements.push(settlement);
  }
  return { settlements, writeErrors };
}

/** The recorded settlements (the lease was still held) of one outcome, each with its job. */
function recorded<O extends Settlement["outcome"]>(batch: Pending[], settlements: Settlement[], held: string[], outcome: O) {
  const kept = new Set(held);
  const found: { settlement: Extract<Settlement, { outcome: O }>; job: JobRecord }[] = [];
  for (const s of settlements) {
    if (s.outcome !== outcome || !kept.has(s.id)) continue;
    const job = batch.find((p) => p.entry?.job.id === s.id)?.entry?.job;
    if (job) found.push({ settlement: s as Extract<Settlement, { outcome: O }>, job });
  }
  return found;
}

/** The settlements that killed their job and were recorded, with what the onDead hook needs. */
export function deathsOf(batch: Pending[], settlements: Settlement[], held: string[]): Death[] {
  return recorded(batch, settlements, held, "dead").map(({ settlement: s, job }) => ({
    id: job.id,
    kind: job.kind,
    payload: job.payload,
    attempts: s.attempt,
    error: s.error,
  }));
}

/** The hand-backs that were recorded, with what the onHandedBack hook needs. */
export function handBacksOf(batch: Pending[], settlements: Settlement[], held: string[]): HandBack[] {
  return recorded(batch, settlements, held, "released").map(({ job }) => ({ id: job.id, kind: job.kind, payload: job.payload }));
}
