// Signed outbound webhooks: each event is a message row, delivered at least once by jobs with a fixed retry
// schedule (about three days), every attempt logged, signed per Standard Webhooks with the account's secret(s).
//
// The promise to receivers: the same `webhook-id` on every attempt of a message (deduplicate on it), a fresh
// `webhook-timestamp` per attempt (reject old ones), and a `webhook-signature` that verifies with the secret
// from GET /v1/webhooks/secret (during a rotation both the old and the new secret sign for 24 h).
import { and, asc, desc, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import type { Db, Orm } from "../db";
import type { Clock } from "../db/clock";
import { iso, newId } from "../db/ids";
import type { webhookAttempts, webhookMessages } from "../db/schema";
import { idList } from "../db/dialect";
import { createPager, type PageQuery } from "../db/pagination";
import { errors } from "../http/errors";
import type { Logger } from "../config/log";
import { OutboundError, outboundFetch } from "../net";
import { PermanentFailure, RetryAfter, type DeferredWrite, type JobEngine } from "../jobs";
import { newSortableId } from "../jobs/ids";
import { newSecret, signatureHeader } from "./sign";

export { newSecret, sign, signatureHeader, verify } from "./sign";

export const WEBHOOK_JOB = "webhook.deliver";
/** Delay before attempt 2, 3, …: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h (≈ 3.3 days in all). */
export const RETRY_SCHEDULE_MS = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6, 864e5, 864e5];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
const RESPONSE_SNIPPET_BYTES = 2048;
/** Undelivered messages kept in memory (about 1 KB each) for their first delivery; beyond it they are read back. */
const UNDELIVERED_CACHE = 10_000;
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;
const utf8 = new TextDecoder();

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
  const { webhookAttempts, webhookMessages, webhookSecrets } = db.schema;
  const ids = idList(db.dialect);
  const random = deps.random ?? Math.random;
  const pageAll = createPager<MessageRow>(db.read, webhookMessages, [webhookMessages.accountId], "webhook message");
  const pageForVideo = createPager<MessageRow>(db.read, webhookMessages, [webhookMessages.accountId, webhookMessages.videoId], "webhook message");

  // Every delivery runs these, so they are prepared once.
  const messagesByIds = db.read
    .select()
    .from(webhookMessages)
    .where(ids.contains(webhookMessages.id, "ids"))
    .prepare();
  const unexpiredSecrets = db.read
    .select({ secret: webhookSecrets.secret, expiresAt: webhookSecrets.expiresAt })
    .from(webhookSecrets)
    .where(
      and(
        eq(webhookSecrets.accountId, sql.placeholder("account")),
        or(isNull(webhookSecrets.expiresAt), gt(webhookSecrets.expiresAt, sql.placeholder("now"))),
      ),
    )
    .orderBy(desc(webhookSecrets.createdAt))
    .prepare();

  // Messages emitted here and not yet delivered or given up on, so their first delivery (almost always from this
  // process) needs no read: every commit empties the reader's page cache, and re-reading a message cost a delivery
  // more than signing and sending it. A row's content never changes, and it leaves the map when its first outcome is
  // recorded, so a retry or redelivery reads the status the database has then.
  const undelivered = new Map<string, MessageRow>();
  function remember(row: MessageRow) {
    // When full, the newest go uncached rather than the oldest out: deliveries run oldest first, so those are needed
    // sooner, and evicting from the front of a Map walks every entry deleted there before (quadratic in a burst).
    if (undelivered.size < UNDELIVERED_CACHE) undelivered.set(row.id, row);
  }

  // The deliveries a scheduler round starts all ask for their message in the same turn; one statement reads them all.
  // One lookup each cost several times more: every commit empties the reader's page cache, and rounds commit often.
  let wanted: Map<string, { resolve(row: MessageRow | undefined): void; reject(e: unknown): void }[]> | null = null;
  function loadMessage(id: string): Promise<MessageRow | undefined> | MessageRow {
    const known = undelivered.get(id);
    if (known) return known;
    return new Promise((resolve, reject) => {
      if (!wanted) {
        wanted = new Map();
        queueMicrotask(() => void readWanted());
      }
      const waiters = wanted.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else wanted.set(id, [{ resolve, reject }]);
    });
  }
  async function readWanted() {
    const batch = wanted!;
    wanted = null;
    try {
      const found = await messagesByIds.execute({ ids: ids.bind([...batch.keys()]) });
      const rows = new Map(found.map((r) => [r.id, r]));
      for (const [id, waiters] of batch) for (const w of waiters) w.resolve(rows.get(id));
    } catch (e) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(e);
    }
  }

  /** The secrets that sign a delivery at `now`, newest first. */
  async function activeSecrets(accountId: string, now: number): Promise<string[]> {
    // Cached until anything commits (a rotation does), so a burst of deliveries reads an account's secrets once. The
    // expiry is checked here rather than in the cached query: a rotated-out secret must stop signing on time even if
    // nothing commits meanwhile.
    // drizzle's execute() returns a thenable, not a Promise: awaiting it inside makes the cache keep the rows.
    const rows = await db.cached(`webhook-secrets:${accountId}`, async () => await unexpiredSecrets.execute({ account: accountId, now }));
    const out: string[] = [];
    for (const r of rows) if (r.expiresAt === null || r.expiresAt > now) out.push(r.secret);
    return out;
  }

  // The writer handle lives as long as the database, so its statements are prepared on first use and kept.
  const writeStatements = new WeakMap<Orm, ReturnType<typeof prepareWrites>>();
  function prepareWrites(tx: Orm) {
    const p = sql.placeholder;
    return {
      insertAttempt: tx
        .insert(webhookAttempts)
        .values({
          id: p("id"),
          messageId: p("messageId"),
          attempt: p("attempt"),
          statusCode: p("statusCode"),
          latencyMs: p("latencyMs"),
          responseSnippet: p("responseSnippet"),
          error: p("error"),
          nextAttemptAt: p("nextAttemptAt"),
          createdAt: p("createdAt"),
        })
        .prepare(),
      updateMessage: tx
        .update(webhookMessages)
        // set() only takes placeholders wrapped in sql fragments.
        .set({
          status: sql`${p("status")}`,
          attemptCount: sql`${p("attempt")}`,
          deliveredAt: sql`${p("deliveredAt")}`,
          updatedAt: sql`${p("updatedAt")}`,
        })
        .where(eq(webhookMessages.id, p("id")))
        .prepare(),
    };
  }
  function writesOn(tx: Orm) {
    let w = writeStatements.get(tx);
    if (!w) writeStatements.set(tx, (w = prepareWrites(tx)));
    return w;
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
    // Time-ordered, so a burst of messages is later updated (and its attempts logged) a few pages at a time.
    const id = newSortableId("msg", now);
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
    db.afterCommit(() => remember(row));
    return row;
  }

  type AttemptFields = Partial<Pick<AttemptRow, "statusCode" | "latencyMs" | "responseSnippet" | "error" | "nextAttemptAt">>;

  /**
   * Logs the attempt and moves the message's status. With `defer` (a job's deferWrite) the two rows are written in
   * the round that records the job's outcome, in the same transaction; otherwise in a transaction of their own.
   */
  function record(
    defer: ((write: DeferredWrite) => void) | undefined,
    messageId: string,
    attempt: number,
    fields: AttemptFields,
    status: string,
    deliveredAt?: number,
  ): Promise<void> | void {
    const now = clock.now();
    const attemptRow = {
      id: newSortableId("att", now),
      messageId,
      attempt,
      statusCode: fields.statusCode ?? null,
      latencyMs: fields.latencyMs ?? null,
      responseSnippet: fields.responseSnippet ?? null,
      error: fields.error ?? null,
      nextAttemptAt: fields.nextAttemptAt ?? null,
      createdAt: now,
    };
    const messageRow = { id: messageId, status, attempt, deliveredAt: deliveredAt ?? null, updatedAt: now };
    // Retries read the message back: by then a redelivery may have been asked for anywhere.
    undelivered.delete(messageId);
    const write = async (tx: Orm) => {
      const w = writesOn(tx);
      await w.insertAttempt.execute(attemptRow);
      await w.updateMessage.execute(messageRow);
    };
    if (defer) return defer(write);
    return db.tx(write);
  }

  /**
   * One delivery attempt of one message. As a job handler it passes `defer`, so the attempt log commits with the job's
   * outcome; called without, it writes the log itself before returning.
   */
  async function deliver(
    messageId: string,
    attempt: number,
    maxAttempts: number,
    signal: AbortSignal,
    defer?: (write: DeferredWrite) => void,
  ): Promise<void> {
    const message = await loadMessage(messageId);
    if (!message || message.status === "delivered") return;
    const now = clock.now();
    const secrets = await activeSecrets(message.accountId, now);
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
        defer,
        message.id,
        attempt,
        { latencyMs, error, nextAttemptAt: final ? null : clock.now() + scheduled! },
        final ? "failed" : "retrying",
      );
      if (final) throw new PermanentFailure(error);
      throw new RetryAfter(scheduled!, error);
    }
    const latencyMs = Math.round(performance.now() - started);
    const snippet = utf8.decode(res.body);
    const status = res.status;
    if (status >= 200 && status < 300) {
      await record(defer, message.id, attempt, { statusCode: status, latencyMs, responseSnippet: snippet }, "delivered", clock.now());
      return;
    }
    // 410 Gone: the receiver says this endpoint is gone for good.
    if (status === 410 || last) {
      logger.warn("webhook delivery gave up", { message_id: message.id, attempt, status });
      await record(defer, message.id, attempt, { statusCode: status, latencyMs, responseSnippet: snippet, error: `HTTP ${status}` }, "failed");
      throw new PermanentFailure(`receiver answered ${status}`);
    }
    let delay = scheduled!;
    if (status === 429 || status >= 500) {
      const asked = parseRetryAfter(res.headers.get("retry-after"), clock.now());
      if (asked !== null) delay = Math.max(delay, Math.min(asked, MAX_RETRY_AFTER_MS));
    }
    await record(
      defer,
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
    (job) => deliver(job.payload.messageId, job.attempt, job.maxAttempts, job.signal, job.deferWrite),
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
