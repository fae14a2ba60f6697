// Signed outbound webhooks: each event is a message row, delivered at least once by jobs with a fixed retry
// schedule (about three days), every attempt logged, signed per Standard Webhooks with the account's secret(s).
//
// The promise to receivers: the same `webhook-id` on every attempt of a message (deduplicate on it), a fresh
// `webhook-timestamp` per attempt (reject old ones), and a `webhook-signature` that verifies with the secret
// from GET /v1/webhooks/secret (during a rotation both the old and the new secret sign for 24 h).
import { and, asc, desc, eq, gt, inArray, isNull, or } from "drizzle-orm";
import type { Db, Orm } from "../db";
import type { Clock } from "../db/clock";
import { iso, newId } from "../db/ids";
import { webhookAttempts, webhookMessages, webhookSecrets } from "../db/schema";
import { createPager, type PageQuery } from "../db/pagination";
import { errors } from "../http/errors";
import type { Logger } from "../config/log";
import { OutboundError, outboundFetch } from "../net";
import { PermanentFailure, RetryAfter, type JobEngine } from "../jobs";
import { newSecret, signatureHeader } from "./sign";

export { newSecret, sign, signatureHeader, verify } from "./sign";

export const WEBHOOK_JOB = "webhook.deliver";
/** Delay before attempt 2, 3, …: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h (≈ 3.3 days in all). */
export const RETRY_SCHEDULE_MS = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6, 864e5, 864e5];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
const RESPONSE_SNIPPET_BYTES = 2048;
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

export type WebhookDeps = {
  db: Db;
  clock: Clock;
  logger: Logger;
  jobs: JobEngine;
  outbound: { allowPrivateNetworks: boolean; timeoutMs: number; resolve?: (host: string) => Promise<string[]> };
  random?: () => number;
};

export type MessageRow = typeof webhookMessages.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

export type Emit = {
  accountId: string;
  event: string;
  url: string;
  data: Record<string, unknown>;
  videoId?: string | null;
};

/** The delay before the next attempt after `attempt` failed, with ±20% jitter. */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const base = RETRY_SCHEDULE_MS[Math.min(attempt - 1, RETRY_SCHEDULE_MS.length - 1)];
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export function attemptJson(row: AttemptRow) {
  return {
    id: row.id,
    attempt: row.attempt,
    status_code: row.statusCode,
    latency_ms: row.latencyMs,
    response: row.responseSnippet,
    error: row.error,
    next_attempt_at: iso(row.nextAttemptAt),
    created_at: iso(row.createdAt),
  };
}

export function messageJson(row: MessageRow, attempts: AttemptRow[]) {
  return {
    id: row.id,
    object: "webhook_message",
    event: row.event,
    url: row.url,
    video_id: row.videoId,
    status: row.status,
    attempts: attempts.map(attemptJson),
    payload: JSON.parse(row.payload),
    created_at: iso(row.createdAt),
    delivered_at: iso(row.deliveredAt),
  };
}

export function createWebhooks(deps: WebhookDeps) {
  const { db, clock, logger, jobs } = deps;
  const random = deps.random ?? Math.random;
  const pageAll = createPager<MessageRow>(db.read, webhookMessages, [webhookMessages.accountId], "webhook message");
  const pageForVideo = createPager<MessageRow>(db.read, webhookMessages, [webhookMessages.accountId, webhookMessages.videoId], "webhook message");

  async function activeSecrets(orm: Orm, accountId: string, now: number): Promise<string[]> {
    const rows = await orm
      .select({ secret: webhookSecrets.secret })
      .from(webhookSecrets)
      .where(and(eq(webhookSecrets.accountId, accountId), or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, now))))
      .orderBy(desc(webhookSecrets.createdAt));
    return rows.map((r) => r.secret);
  }

  async function currentSecret(accountId: string): Promise<string> {
    const now = clock.now();
    const [row] = await db.read
      .select({ secret: webhookSecrets.secret })
      .from(webhookSecrets)
      .where(and(eq(webhookSecrets.accountId, accountId), isNull(webhookSecrets.expiresAt)))
      .limit(1);
    if (row) return row.secret;
    return db.tx(async (tx) => {
      const [again] = await tx
        .select({ secret: webhookSecrets.secret })
        .from(webhookSecrets)
        .where(and(eq(webhookSecrets.accountId, accountId), isNull(webhookSecrets.expiresAt)))
        .limit(1);
      if (again) return again.secret;
      const secret = newSecret();
      await tx.insert(webhookSecrets).values({ id: newId("file").replace("file_", "whs_"), accountId, secret, createdAt: now });
      return secret;
    });
  }

  async function emit(tx: Orm, input: Emit): Promise<MessageRow> {
    const now = clock.now();
    const id = newId("msg");
    const payload = JSON.stringify({ id, event: input.event, created_at: iso(now), data: input.data });
    const [row] = await tx
      .insert(webhookMessages)
      .values({
        id,
        accountId: input.accountId,
        event: input.event,
        url: input.url,
        videoId: input.videoId ?? null,
        payload,
        status: "pending",
        createdAt: now,
      })
      .returning();
    await jobs.enqueue(tx, WEBHOOK_JOB, { messageId: id }, { maxAttempts: MAX_ATTEMPTS, concurrencyKey: `webhook:${input.accountId}` });
    return row;
  }

  async function record(messageId: string, attempt: number, fields: Partial<AttemptRow>, status: string, deliveredAt?: number) {
    const now = clock.now();
    await db.tx(async (tx) => {
      await tx.insert(webhookAttempts).values({ id: newId("att"), messageId, attempt, createdAt: now, ...fields });
      await tx
        .update(webhookMessages)
        .set({ status, attemptCount: attempt, deliveredAt: deliveredAt ?? null, updatedAt: now })
        .where(eq(webhookMessages.id, messageId));
    });
  }

  /** The job handler: one delivery attempt of one message. */
  async function deliver(messageId: string, attempt: number, maxAttempts: number, signal: AbortSignal): Promise<void> {
    const [message] = await db.read.select().from(webhookMessages).where(eq(webhookMessages.id, messageId)).limit(1);
    if (!message || message.status === "delivered") return;
    const now = clock.now();
    const secrets = await activeSecrets(db.read, message.accountId, now);
    if (secrets.length === 0) secrets.push(await currentSecret(message.accountId));
    const timestamp = Math.floor(now / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "vitrin-webhooks/1",
      "webhook-id": message.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(secrets, message.id, timestamp, message.payload),
    };
    const last = attempt >= maxAttempts;
    const scheduled = last ? null : retryDelay(attempt, random);
    const started = performance.now();
    let res;
    try {
      res = await outboundFetch(message.url, {
        method: "POST",
        headers,
        body: message.payload,
        allowPrivateNetworks: deps.outbound.allowPrivateNetworks,
        resolve: deps.outbound.resolve,
        timeoutMs: deps.outbound.timeoutMs,
        maxRedirects: 0,
        maxBytes: RESPONSE_SNIPPET_BYTES,
        overflow: "truncate",
        signal,
      });
    } catch (e) {
      if (signal.aborted) throw e;
      const latencyMs = Math.round(performance.now() - started);
      const blocked = e instanceof OutboundError && ["blocked_address", "scheme", "invalid_url"].includes(e.code);
      const error = e instanceof OutboundError ? `${e.code}: ${e.message}` : (e as Error).message;
      const final = blocked || last;
      if (final) logger.warn("webhook delivery gave up", { message_id: message.id, attempt, error });
      await record(
        message.id,
        attempt,
        { latencyMs, error, nextAttemptAt: final ? null : clock.now() + scheduled! },
        final ? "failed" : "retrying",
      );
      if (final) throw new PermanentFailure(error);
      throw new RetryAfter(scheduled!, error);
    }
    const latencyMs = Math.round(performance.now() - started);
    const snippet = new TextDecoder().decode(res.body);
    const status = res.status;
    if (status >= 200 && status < 300) {
      await record(message.id, attempt, { statusCode: status, latencyMs, responseSnippet: snippet }, "delivered", clock.now());
      return;
    }
    // 410 Gone: the receiver says this endpoint is gone for good.
    if (status === 410 || last) {
      logger.warn("webhook delivery gave up", { message_id: message.id, attempt, status });
      await record(message.id, attempt, { statusCode: status, latencyMs, responseSnippet: snippet, error: `HTTP ${status}` }, "failed");
      throw new PermanentFailure(`receiver answered ${status}`);
    }
    let delay = scheduled!;
    if (status === 429 || status >= 500) {
      const asked = parseRetryAfter(res.headers.get("retry-after"), clock.now());
      if (asked !== null) delay = Math.max(delay, Math.min(asked, MAX_RETRY_AFTER_MS));
    }
    await record(
      message.id,
      attempt,
      { statusCode: status, latencyMs, responseSnippet: snippet, error: `HTTP ${status}`, nextAttemptAt: clock.now() + delay },
      "retrying",
    );
    throw new RetryAfter(delay, `receiver answered ${status}`);
  }

  async function attemptsFor(ids: string[]): Promise<Map<string, AttemptRow[]>> {
    const out = new Map<string, AttemptRow[]>();
    if (ids.length === 0) return out;
    const rows = await db.read
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

  jobs.register<{ messageId: string }>(
    WEBHOOK_JOB,
    (job) => deliver(job.payload.messageId, job.attempt, job.maxAttempts, job.signal),
    { concurrency: 32, keyConcurrency: 8, maxAttempts: MAX_ATTEMPTS, leaseMs: 60_000, timeoutMs: deps.outbound.timeoutMs + 15_000 },
  );

  return {
    emit,
    secret: currentSecret,

    async rotate(accountId: string): Promise<{ secret: string; previous_expires_at: string }> {
      await currentSecret(accountId);
      const now = clock.now();
      const secret = newSecret();
      await db.tx(async (tx) => {
        await tx
          .update(webhookSecrets)
          .set({ expiresAt: now + ROTATION_OVERLAP_MS })
          .where(and(eq(webhookSecrets.accountId, accountId), isNull(webhookSecrets.expiresAt)));
        await tx.insert(webhookSecrets).values({ id: newId("file").replace("file_", "whs_"), accountId, secret, createdAt: now });
      });
      return { secret, previous_expires_at: iso(now + ROTATION_OVERLAP_MS)! };
    },

    async list(accountId: string, query: PageQuery & { video_id?: string }) {
      const page = query.video_id ? await pageForVideo([accountId, query.video_id], query) : await pageAll([accountId], query);
      const attempts = await attemptsFor(page.data.map((m) => m.id));
      return { data: page.data.map((m) => messageJson(m, attempts.get(m.id) ?? [])), has_more: page.has_more };
    },

    async get(accountId: string, id: string) {
      const [row] = await db.read
        .select()
        .from(webhookMessages)
        .where(and(eq(webhookMessages.accountId, accountId), eq(webhookMessages.id, id)))
        .limit(1);
      if (!row) throw errors.notFound("webhook message");
      return messageJson(row, (await attemptsFor([id])).get(id) ?? []);
    },

    /** Sends a message again (same webhook-id), whatever became of it before. */
    async redeliver(accountId: string, id: string) {
      await db.tx(async (tx) => {
        const [row] = await tx
          .select({ id: webhookMessages.id })
          .from(webhookMessages)
          .where(and(eq(webhookMessages.accountId, accountId), eq(webhookMessages.id, id)))
          .limit(1);
        if (!row) throw errors.notFound("webhook message");
        await tx.update(webhookMessages).set({ status: "pending", updatedAt: clock.now() }).where(eq(webhookMessages.id, id));
        await jobs.enqueue(tx, WEBHOOK_JOB, { messageId: id }, { maxAttempts: MAX_ATTEMPTS, concurrencyKey: `webhook:${accountId}` });
      });
      return this.get(accountId, id);
    },

    /** A signed `ping` to any URL, so integrators can check their receiver. */
    async ping(accountId: string, url: string) {
      const row = await db.tx((tx) => emit(tx, { accountId, event: "ping", url, data: { message: "Hello from vitrin" } }));
      return messageJson(row, []);
    },

    deliver,
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
