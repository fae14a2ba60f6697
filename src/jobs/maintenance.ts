// Upkeep of the jobs table: rescuing jobs whose worker died (their lease ran out), settling the owners of jobs that
// died, and pruning finished jobs past their retention. Rounds run it every maintenanceMs; maintain() at once.
import type { Orm } from "../db";
import { settleDeaths, type Death } from "./dead";
import type { MaintenanceResult } from "./options";
import { markClaimable, ownerProcess, serial, write, type EngineState } from "./state";
import type { RescuedJob } from "./store";

const PRUNE_CHUNK = 1000;
const PRUNE_CHUNKS_PER_PASS = 20;

export function rescuedDeaths(rescued: RescuedJob[]): Death[] {
  const deaths: Death[] = [];
  for (const r of rescued) {
    if (r.status === "dead") deaths.push({ id: r.id, kind: r.kind, payload: r.payload, attempts: r.attempts, error: r.lastError });
  }
  return deaths;
}

/** Runs the kinds' onDead hooks in the transaction that marks the jobs dead. */
export function settleDeadJobs(s: EngineState, tx: Orm, deaths: Death[]): Promise<number> {
  if (deaths.length === 0) return Promise.resolve(0);
  return settleDeaths(s.store, tx, deaths, (kind) => s.kinds.get(kind)?.onDead, s.logger);
}

/** Tells the metrics of each death, once it is committed. */
export function observeDeaths(s: EngineState, deaths: { kind: string }[]): void {
  if (s.observeDeath) for (const d of deaths) s.observeDeath(d.kind);
}

export function reportRescued(s: EngineState, rescued: RescuedJob[]): void {
  for (const r of rescued) {
    if (r.status === "queued") markClaimable(s.kinds.get(r.kind));
    const fields = { job: r.id, kind: r.kind, attempts: r.attempts, reason: r.lastError };
    if (r.status === "dead") s.logger.error("job dead: lease expired on its last attempt", fields);
    else s.logger.warn("job lease expired; queued again", fields);
  }
}

/**
 * Whether a lease owner is a process of this host that no longer runs: owners are `host:pid:id` (ownerProcess), and a
 * pid that this host does not know is gone. Anything else (another host, a live or unknown pid, an owner named
 * otherwise) is left to its lease. A pid reused by another process only makes the wait the lease's, as before.
 */
export function deadLocalOwner(owner: string, host: string): boolean {
  const proc = ownerProcess(owner);
  if (!proc || proc.host !== host || proc.pid === process.pid) return false;
  try {
    process.kill(proc.pid, 0);
    return false;
  } catch (e) {
    // EPERM: the process exists, it is only someone else's.
    return (e as { code?: string }).code === "ESRCH";
  }
}

/**
 * The maintenance rescue: leases held by dead processes of this host end at once (a restarted single instance takes
 * its own jobs back without waiting out their leases), then every expired lease is rescued.
 */
export async function rescue(s: EngineState, tx: Orm, now: number): Promise<RescuedJob[]> {
  const dead = (await s.store.runningOwners(tx)).filter((owner) => deadLocalOwner(owner, s.host));
  if (dead.length > 0) {
    const ended = await s.store.endLeasesOf(tx, dead, now);
    if (ended > 0) s.logger.warn("leases of stopped processes on this host ended early", { owners: dead, jobs: ended });
  }
  return s.store.rescueExpired(tx, now);
}

export async function prune(s: EngineState, now: number): Promise<number> {
  let total = 0;
  const plan: ["succeeded" | "dead", number][] = [
    ["succeeded", now - s.retainSucceededMs],
    ["dead", now - s.retainDeadMs],
  ];
  for (const [status, before] of plan) {
    // Small chunks, one transaction each, so pruning a large backlog never holds the write lock for long.
    for (let i = 0; i < PRUNE_CHUNKS_PER_PASS; i++) {
      try {
        const n = await write(s, (tx) => s.store.prune(tx, status, before, PRUNE_CHUNK));
        total += n;
        if (n < PRUNE_CHUNK) break;
      } catch (err) {
        s.logger.error("job pruning failed", { err, status });
        break;
      }
    }
  }
  if (total > 0) s.logger.info("jobs pruned", { count: total });
  return total;
}

/** Lease rescue and retention pruning now, whatever the schedule (JobEngine.maintain). */
export function maintain(s: EngineState): Promise<MaintenanceResult> {
  return serial(s, async () => {
    const now = s.clock.now();
    const rescued = await write(s, async (tx) => {
      const found = await rescue(s, tx, now);
      await settleDeadJobs(s, tx, rescuedDeaths(found));
      return found;
    });
    reportRescued(s, rescued);
    observeDeaths(s, rescued.filter((r) => r.status === "dead"));
    const pruned = await prune(s, now);
    s.nextMaintenanceAt = now + s.maintenanceMs;
    return {
      requeued: rescued.filter((r) => r.status === "queued").length,
      dead: rescued.filter((r) => r.status === "dead").length,
      pruned,
    };
  });
}
