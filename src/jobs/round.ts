// One scheduler round: a single write transaction (one fsync) that settles every attempt finished since the last
// round, applies the writes their handlers deferred, renews due leases, rescues expired ones when maintenance is due,
// and claims new jobs; then, once committed, the claimed handlers are started.
import type { Orm } from "../db";
import { describeError, dispatch, loseLease, reportOutcome, timeOut } from "./attempt";
import { settleHandBacks, type Death } from "./dead";
import { observeDeaths, prune, reportRescued, rescue, rescuedDeaths, settleDeadJobs } from "./maintenance";
import { deathsOf, handBacksOf, settlementsOf, type WriteError } from "./round-writes";
import { write, type EngineState, type Inflight, type Pending } from "./state";
import type { ClaimRequest, JobRecord, LeaseRenewal, RescuedJob, Settlement } from "./store";

/** What one scheduler round did (tick() reports only `claimed`). */
export type RoundResult = { claimed: number; settled: number; rescued: number; pruned: number };

/** What a round will write, decided before it waits for the write lock. */
type RoundPlan = {
  /** Finished attempts (and stray deferred writes) taken from the pending list. */
  batch: Pending[];
  requests: ClaimRequest[];
  /** Each request's kind's claimableEpoch when it was asked, to tell whether a short claim is still the latest word. */
  epochs: (number | undefined)[];
  maintain: boolean;
  /** Attempts whose lease is due for renewal. */
  due: Inflight[];
};

/** What the round's transaction did, once committed. */
type RoundWritten = {
  now: number;
  rescued: RescuedJob[];
  settlements: Settlement[];
  writeErrors: WriteError[];
  /** Ids of the settlements recorded (their lease was still held). */
  held: string[];
  renewed: Map<Inflight, boolean>;
  claimed: JobRecord[];
  deaths: Death[];
};

/** `claim` false: only record outcomes and writes (drain, shutdown), no claims and no maintenance. */
export async function round(s: EngineState, claim: boolean): Promise<RoundResult> {
  const result: RoundResult = { claimed: 0, settled: 0, rescued: 0, pruned: 0 };
  const plan = planRound(s, claim);
  if (!plan) return result;
  let written: RoundWritten;
  try {
    written = await write(s, (tx) => writeRound(s, tx, plan));
  } catch (err) {
    // Nothing was written: keep the outcomes and writes for the next round; unsettled jobs stay leased meanwhile.
    s.pending = plan.batch.concat(s.pending);
    s.roundBackoff.failed(err);
    return result;
  }
  s.roundBackoff.succeeded();

  const { now } = written;
  if (plan.maintain) s.nextMaintenanceAt = now + s.maintenanceMs;
  reportRescued(s, written.rescued);
  observeDeaths(s, written.deaths);
  result.rescued = written.rescued.length;
  reportWriteErrors(s, written.writeErrors);
  result.settled = written.held.length;
  reportDiscarded(s, written.settlements, written.held);
  for (const [entry, ok] of written.renewed) {
    if (ok) entry.lastBeat = now;
    else loseLease(s, entry);
  }
  for (const job of written.claimed) dispatch(s, job);
  result.claimed = written.claimed.length;
  markExhausted(s, plan, written.claimed, now);
  if (plan.maintain) result.pruned = await prune(s, now);
  return result;
}

/** Null when the round has nothing to do (or must wait out a back-off); times attempts out on the way. */
function planRound(s: EngineState, claim: boolean): RoundPlan | null {
  const active = claim && !s.stopping;
  // Timeouts run on the engine's clock, checked every round (the loop sleeps no longer than the next deadline).
  const start = s.clock.now();
  for (const e of s.inflight) if (!e.settled && start >= e.deadline) timeOut(s, e);
  if (active && s.roundBackoff.waitMs(start) > 0) return null;
  const batch = s.pending;
  s.pending = [];
  for (const k of s.kinds.values()) k.returned = 0;
  const requests = active ? claimRequests(s, start) : [];
  const epochs = requests.map((r) => s.kinds.get(r.kind)?.claimableEpoch);
  const maintain = active && start >= s.nextMaintenanceAt;
  const due = dueRenewals(s, start);
  if (!maintain && batch.length === 0 && requests.length === 0 && due.length === 0) return null;
  return { batch, requests, epochs, maintain, due };
}

async function writeRound(s: EngineState, tx: Orm, plan: RoundPlan): Promise<RoundWritten> {
  // Read the clock once the write lock is ours, so leases start when the claim actually commits.
  const now = s.clock.now();
  const rescued = plan.maintain ? await rescue(s, tx, now) : [];
  const { settlements, writeErrors } = await settlementsOf(s, tx, plan.batch);
  const held = settlements.length ? await s.store.settle(tx, s.owner, now, settlements) : [];
  const deaths = [...rescuedDeaths(rescued), ...deathsOf(plan.batch, settlements, held)];
  await settleDeadJobs(s, tx, deaths);
  const backs = handBacksOf(plan.batch, settlements, held);
  if (backs.length) await settleHandBacks(s.store, tx, backs, (kind) => s.kinds.get(kind)?.onHandedBack, s.logger);
  const renewed = new Map<Inflight, boolean>();
  if (plan.due.length) {
    // Leases run from now, not from when the round began waiting for the lock.
    const leases: LeaseRenewal[] = plan.due.map((e) => ({ id: e.job.id, attempt: e.attempt, leaseExpiresAt: now + e.kind.leaseMs }));
    const ok = new Set(await s.store.renew(tx, s.owner, now, leases));
    for (const e of plan.due) renewed.set(e, ok.has(e.job.id));
  }
  const claimed = plan.requests.length ? await s.store.claim(tx, s.owner, now, plan.requests) : [];
  return { now, rescued, settlements, writeErrors, held, renewed, claimed, deaths };
}

/** How many jobs of each kind to claim: free slots, within the round's batch budget, rotating which kind goes first. */
function claimRequests(s: EngineState, now: number): ClaimRequest[] {
  const kinds = [...s.kinds.values()];
  if (kinds.length === 0) return [];
  const start = s.kindCursor++ % kinds.length;
  let budget = s.batchSize;
  const requests: ClaimRequest[] = [];
  for (let i = 0; i < kinds.length && budget > 0; i++) {
    const k = kinds[(start + i) % kinds.length]!;
    const free = k.concurrency - k.running;
    // A claim that came back short would again, until something changes; asking anyway costs statements every round,
    // and when every key with due jobs is at its limit, a walk through that whole backlog.
    if (free <= 0 || now < k.exhaustedUntil) continue;
    const limit = Math.min(free, budget);
    budget -= limit;
    requests.push({ kind: k.kind, limit, leaseMs: k.leaseMs, keyLimit: k.keyConcurrency });
  }
  return requests;
}

/** Attempts whose last renewal is a third of a lease old: renewing then leaves two thirds as slack for a slow round. */
function dueRenewals(s: EngineState, now: number): Inflight[] {
  const due: Inflight[] = [];
  for (const e of s.inflight) {
    if (!e.settled && now - e.lastBeat >= Math.floor(e.kind.leaseMs / 3)) due.push(e);
  }
  return due;
}

/** Kinds whose claim came back short are skipped until pollMs has passed. */
function markExhausted(s: EngineState, plan: RoundPlan, claimed: JobRecord[], now: number): void {
  if (!plan.requests.length) return;
  const got = new Map<string, number>();
  for (const job of claimed) got.set(job.kind, (got.get(job.kind) ?? 0) + 1);
  plan.requests.forEach((r, i) => {
    const k = s.kinds.get(r.kind);
    // Unless something freed a slot or added jobs meanwhile. Until pollMs has passed: the backstop for jobs
    // enqueued elsewhere or coming due, as for an idle engine.
    if (k && (got.get(r.kind) ?? 0) < r.limit && k.claimableEpoch === plan.epochs[i]) k.exhaustedUntil = now + s.pollMs;
  });
}

function reportWriteErrors(s: EngineState, writeErrors: WriteError[]): void {
  for (const { pending, error, settlement } of writeErrors) {
    const job = pending.entry?.job;
    s.logger.error("job writes failed and were rolled back", {
      job: job?.id ?? pending.settlement?.id,
      kind: job?.kind,
      attempt: pending.entry?.attempt ?? pending.settlement?.attempt,
      error: describeError(error),
    });
    if (settlement && pending.entry && settlement !== pending.settlement) reportOutcome(s, pending.entry, settlement);
  }
}

/** Settlements the store fenced out: another worker took the job over before the outcome could be recorded. */
function reportDiscarded(s: EngineState, settlements: Settlement[], held: string[]): void {
  if (held.length >= settlements.length) return;
  const recorded = new Set(held);
  for (const settlement of settlements) {
    if (recorded.has(settlement.id)) continue;
    s.logger.warn("job outcome discarded: lease was lost before it could be recorded", {
      job: settlement.id,
      attempt: settlement.attempt,
      outcome: settlement.outcome,
    });
  }
}
