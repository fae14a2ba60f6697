// The delivery log an account reads: its messages with every attempt, one message, and redelivery of a message.
import { and, asc, eq, inArray } from "drizzle-orm";
import { createPager, type Db, type PageQuery } from "../db";
import type { JobEngine } from "../jobs";
import { errors, type Clock } from "../kernel";
import { messageJson } from "./json";
import { scheduleDelivery } from "./outbox";
import type { AttemptRow, MessageRow } from "./types";

type Pager = ReturnType<typeof createPager<MessageRow>>;
export type HistoryDeps = { db: Db; clock: Clock; jobs: JobEngine; pageAll: Pager; pageForVideo: Pager };

/** The pagers over an account's messages, all of them or one video's. */
export function historyPagers(db: Db): { pageAll: Pager; pageForVideo: Pager } {
  const { webhookMessages } = db.schema;
  return {
    pageAll: createPager<MessageRow>(db.read, webhookMessages, [webhookMessages.accountId], "webhook message"),
    pageForVideo: createPager<MessageRow>(db.read, webhookMessages, [webhookMessages.accountId, webhookMessages.videoId], "webhook message"),
  };
}

/** The attempts of each message, oldest first. */
async function attemptsFor(deps: HistoryDeps, ids: string[]): Promise<Map<string, AttemptRow[]>> {
  const { webhookAttempts } = deps.db.schema;
  const out = new Map<string, AttemptRow[]>();
  if (ids.length === 0) return out;
  const rows = await deps.db.read
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.messageId, ids))
    .orderBy(asc(webhookAttempts.createdAt), asc(webhookAttempts.attempt));
  for (const r of rows) {
    const list = out.get(r.messageId) ?? [];
    list.push(r);
    out.set(r.messageId, list);
  }
  return out;
}

export async function listMessages(deps: HistoryDeps, accountId: string, query: PageQuery & { video_id?: string }) {
  const page = query.video_id ? await deps.pageForVideo([accountId, query.video_id], query) : await deps.pageAll([accountId], query);
  const attempts = await attemptsFor(deps, page.data.map((m) => m.id));
  return { data: page.data.map((m) => messageJson(m, attempts.get(m.id) ?? [])), has_more: page.has_more };
}

export async function getMessage(deps: HistoryDeps, accountId: string, id: string) {
  const { webhookMessages } = deps.db.schema;
  const [row] = await deps.db.read
    .select()
    .from(webhookMessages)
    .where(and(eq(webhookMessages.accountId, accountId), eq(webhookMessages.id, id)))
    .limit(1);
  if (!row) throw errors.notFound("webhook message");
  return messageJson(row, (await attemptsFor(deps, [id])).get(id) ?? []);
}

/** Sends a message again (same webhook-id), whatever became of it before; a fresh retry schedule starts. */
export async function redeliver(deps: HistoryDeps, accountId: string, id: string) {
  const { webhookMessages } = deps.db.schema;
  await deps.db.tx(async (tx) => {
    const [row] = await tx
      .select({ attemptCount: webhookMessages.attemptCount, updatedAt: webhookMessages.updatedAt, endpointId: webhookMessages.endpointId })
      .from(webhookMessages)
      .where(and(eq(webhookMessages.accountId, accountId), eq(webhookMessages.id, id)))
      .limit(1);
    if (!row) throw errors.notFound("webhook message");
    // A message for an endpoint deleted since has no secret to sign with: it could only fail again.
    if (row.endpointId !== null) {
      const { webhookEndpoints } = deps.db.schema;
      const [endpoint] = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.id, row.endpointId)).limit(1);
      if (!endpoint) throw errors.conflict("The webhook endpoint this message was for has been deleted; it cannot be sent again.");
    }
    const now = deps.clock.now();
    await tx
      .update(webhookMessages)
      // updated_at always moves, so an attempt under way now can tell that a redelivery came after it.
      .set({ status: "pending", nextAttemptAt: now, retryBase: row.attemptCount, updatedAt: Math.max(now, (row.updatedAt ?? 0) + 1) })
      .where(eq(webhookMessages.id, id));
    await scheduleDelivery(deps.jobs, tx, accountId);
  });
  return getMessage(deps, accountId, id);
}
