// The numbers behind the job metrics: counts by kind and status, and how long the oldest due job has waited.
import type { JobStats, KindStats } from "./options";
import { JOB_STATUSES, type JobStatus, type StatsRows } from "./store";

const emptyKind = (): KindStats => ({ queued: 0, running: 0, succeeded: 0, failed: 0, dead: 0, oldestQueuedAgeMs: null });

/** Folds the store's rows into per-kind and total counts; statuses the engine does not know are left out. */
export function jobStats(rows: StatsRows, now: number): JobStats {
  const kinds: Record<string, KindStats> = {};
  const totals = { queued: 0, running: 0, succeeded: 0, failed: 0, dead: 0 } as Record<JobStatus, number>;
  for (const r of rows.counts) {
    if (!(JOB_STATUSES as readonly string[]).includes(r.status)) continue;
    const status = r.status as JobStatus;
    const k = (kinds[r.kind] ??= emptyKind());
    k[status] += Number(r.count);
    totals[status] += Number(r.count);
  }
  let oldest: number | null = null;
  for (const r of rows.oldestDue) {
    const age = Math.max(0, now - Number(r.runAt));
    (kinds[r.kind] ??= emptyKind()).oldestQueuedAgeMs = age;
    oldest = oldest === null ? age : Math.max(oldest, age);
  }
  return { kinds, totals, oldestQueuedAgeMs: oldest };
}
