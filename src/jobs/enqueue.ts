// Adding jobs inside the caller's transaction: options checked and turned into rows, and the scheduler woken once
// that transaction commits (not before: the jobs do not exist for other connections until then).
import type { Orm } from "../db";
import { newJobId } from "./ids";
import { positiveInt, type EnqueueItem, type EnqueueResult } from "./options";
import { markClaimable, wake, type EngineState } from "./state";
import type { NewJob } from "./store";

function newJob(s: EngineState, item: EnqueueItem, now: number): NewJob {
  if (!item.kind) throw new Error("job kind must be a non-empty string");
  if (item.dedupeKey != null && item.debounceKey != null) throw new Error("a job takes a dedupeKey or a debounceKey, not both");
  return {
    id: newJobId(now),
    kind: item.kind,
    payload: JSON.stringify(item.payload === undefined ? {} : item.payload),
    priority: Math.trunc(item.priority ?? 0),
    runAt: Math.trunc(item.runAt ?? now),
    maxAttempts: positiveInt("maxAttempts", item.maxAttempts ?? s.kinds.get(item.kind)?.maxAttempts ?? 5),
    dedupeKey: item.dedupeKey ?? null,
    debounceKey: item.debounceKey ?? null,
    concurrencyKey: item.concurrencyKey ?? null,
    createdAt: now,
  };
}

/** JobEngine.enqueueMany: results in input order. */
export async function enqueueJobs(s: EngineState, tx: Orm, items: EnqueueItem[]): Promise<EnqueueResult[]> {
  if (items.length === 0) return [];
  const now = s.clock.now();
  const rows = items.map((item) => newJob(s, item, now));
  const out = await s.store.insert(tx, rows);
  const kinds = new Set(rows.map((r) => r.kind));
  s.db.afterCommit(() => {
    for (const kind of kinds) markClaimable(s.kinds.get(kind));
    wake(s);
  });
  return out;
}
