// The outbox: each event becomes a message row (the rows are the queue: each holds when its next attempt is due), and
// the account's delivery job is made sure to run. Also what reads the queue as a whole: resume and backlog.
import { count, isNotNull, min, sql } from "drizzle-orm";
import type { Db, Orm } from "../db";
import type { JobEngine } from "../jobs";
import { newSortableId } from "../jobs";
import { iso, type Clock } from "../kernel";
import { messageJson } from "./json";
import type { Emit, MessageRow } from "./types";

export const WEBHOOK_JOB = "webhook.deliver";
/** A delivery job fails only when the database does; it then retries with backoff for a long while. */
export const DELIVERY_JOB_ATTEMPTS = 25;

export type OutboxDeps = { db: Db; clock: Clock; jobs: JobEngine; inserts: PreparedInserts };

// Statements on a transaction handle are prepared once per handle (SQLite's writer lives as long as the database):
// built anew for every event, the insert cost several times what running it does.
export type PreparedInserts = WeakMap<Orm, ReturnType<typeof prepareInsert>>;

function prepareInsert(db: Db, tx: Orm) {
  const p = sql.placeholder;
  return tx
    .insert(db.schema.webhookMessages)
    .values({
      id: p("id"),
      accountId: p("accountId"),
      event: p("event"),
      url: p("url"),
      videoId: p("videoId"),
      endpointId: p("endpointId"),
      payload: p("payload"),
      status: "pending",
      nextAttemptAt: p("now"),
      createdAt: p("now"),
    })
    .returning()
    .prepare();
}

function insertOn(deps: OutboxDeps, tx: Orm) {
  let s = deps.inserts.get(tx);
  if (!s) deps.inserts.set(tx, (s = prepareInsert(deps.db, tx)));
  return s;
}

/** Makes sure the account's delivery job will run by `runAt` (one queued job per account absorbs the rest). */
export function scheduleDelivery(jobs: JobEngine, tx: Orm, accountId: string, runAt?: number) {
  return jobs.enqueue(tx, WEBHOOK_JOB, { accountId }, {
    runAt,
    debounceKey: `webhook:${accountId}`,
    concurrencyKey: `webhook:${accountId}`,
    maxAttempts: DELIVERY_JOB_ATTEMPTS,
  });
}

/** Queues an event for delivery in the caller's transaction: it is sent only if that transaction commits. */
export async function emit(deps: OutboxDeps, tx: Orm, input: Emit): Promise<MessageRow> {
  const now = deps.clock.now();
  // Time-ordered, so a burst of messages is later updated (and its attempts logged) a few pages at a time.
  const id = newSortableId("msg", now);
  // The contract's fields (id, event, created_at, data) with Standard Webhooks' own names for the same facts (type,
  // timestamp), so receivers written for either read it without mapping.
  const at = iso(now);
  const payload = JSON.stringify({ id, type: input.event, event: input.event, timestamp: at, created_at: at, data: input.data });
  const [row] = await insertOn(deps, tx).execute({
    id,
    accountId: input.accountId,
    event: input.event,
    url: input.url,
    videoId: input.videoId ?? null,
    endpointId: input.endpointId ?? null,
    payload,
    now,
  });
  await scheduleDelivery(deps.jobs, tx, input.accountId);
  return row;
}

/** A signed `ping` to any URL, so integrators can check their receiver. */
export async function ping(deps: OutboxDeps, accountId: string, url: string) {
  const row = await deps.db.tx((tx) => emit(deps, tx, { accountId, event: "ping", url, data: { message: "Hello from vitrin" } }));
  return messageJson(row, []);
}

/**
 * Queues a delivery job for every account with messages waiting, due at its earliest: run when a worker starts,
 * so messages from before an upgrade, or whose job gave up, are never stranded.
 */
export async function resume(deps: OutboxDeps): Promise<number> {
  const { webhookMessages } = deps.db.schema;
  const waiting = await deps.db.read
    .select({ accountId: webhookMessages.accountId, at: min(webhookMessages.nextAttemptAt) })
    .from(webhookMessages)
    .where(isNotNull(webhookMessages.nextAttemptAt))
    .groupBy(webhookMessages.accountId);
  if (waiting.length === 0) return 0;
  await deps.db.tx(async (tx) => {
    for (const w of waiting) await scheduleDelivery(deps.jobs, tx, w.accountId, Number(w.at));
  });
  return waiting.length;
}

/** Messages not yet delivered or given up on, and how long the longest-overdue one has been due (for metrics). */
export async function backlog(deps: OutboxDeps): Promise<{ waiting: number; oldestDueMs: number }> {
  const { webhookMessages } = deps.db.schema;
  const [row] = await deps.db.read
    .select({ waiting: count(), earliest: min(webhookMessages.nextAttemptAt) })
    .from(webhookMessages)
    .where(isNotNull(webhookMessages.nextAttemptAt));
  const earliest = row?.earliest == null ? null : Number(row.earliest);
  return { waiting: Number(row?.waiting ?? 0), oldestDueMs: earliest === null ? 0 : Math.max(0, deps.clock.now() - earliest) };
}
