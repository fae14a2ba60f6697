// Signed outbound webhooks: each event is a message row, delivered at least once with a fixed retry schedule (about
// three days), every attempt logged, signed per Standard Webhooks with the account's secret(s).
//
// The message rows are the queue: each holds when its next attempt is due. Delivery runs as one job per account (its
// concurrency key lets one run at a time across every instance), which sends the account's due messages, up to
// ACCOUNT_IN_FLIGHT at a time, and writes their outcomes in batches. A job per message cost four row writes per
// delivery (claim, settle, attempt log, message) and capped delivery near 8,000/s; this way a delivery writes two.
// The job's lease covers every message it is sending: if its worker dies, the job is rescued and the messages whose
// outcome was not written are sent again (at least once, with the same webhook-id).
//
// The promise to receivers: the same `webhook-id` on every attempt of a message (deduplicate on it), a fresh
// `webhook-timestamp` per attempt (reject old ones), and a `webhook-signature` that verifies with the secret
// from GET /v1/webhooks/secret (during a rotation both the old and the new secret sign for 24 h).
import { and, asc, count, eq, inArray, isNotNull, isNull, min, sql } from "drizzle-orm";
import type { Db, Orm } from "../db";
import type { Clock } from "../kernel";
import { iso, newId } from "../kernel";
import type { webhookAttempts, webhookMessages } from "../db/schema";
import { createPager, type PageQuery } from "../db/pagination";
import { queryValues, runRows, type RowsStatement } from "../db/dialect";
import { errors } from "../kernel";
import type { Logger } from "../kernel";
import { OutboundError, outboundFetch } from "../net";
import type { JobEngine } from "../jobs";
import { newSortableId } from "../jobs/ids";
import { newSecret, signatureHeader } from "./sign";

export { newSecret, sign, signatureHeader, verify } from "./sign";

export const WEBHOOK_JOB = "webhook.deliver";
/** Delay before attempt 2, 3, …: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h (≈ 3.3 days in all). */
export const RETRY_SCHEDULE_MS = [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6, 864e5, 864e5];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
const RESPONSE_SNIPPET_BYTES = 2048;
/** Deliveries in flight to one account at a time: a receiver's fair share, whatever else is waiting. */
const ACCOUNT_IN_FLIGHT = 8;
/** Accounts whose messages one instance delivers at once (each with up to ACCOUNT_IN_FLIGHT in flight). */
const ACCOUNTS_AT_ONCE = 32;
/** Due messages read at a time. */
const PAGE = 64;
/** The most outcomes written in one transaction. */
const MAX_BATCH = 512;
/** A delivery job hands over to a fresh one after this long, so other accounts get a turn at its slot. */
const DRAIN_MS = 30_000;
/** A delivery job fails only when the database does; it then retries with backoff for a long while. */
const DELIVERY_JOB_ATTEMPTS = 25;
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;
const utf8 = new TextDecoder();

// An account's due messages after a cursor (next_attempt_at, id), in the order they fell due (webhook_messages_due_idx):
// [id, url, payload, attempt_count, retry_base, updated_at, next_attempt_at].
const DUE_PAGE = `SELECT id, url, payload, attempt_count, retry_base, updated_at, next_attempt_at FROM webhook_messages
  WHERE account_id = $1 AND next_attempt_at IS NOT NULL AND next_attempt_at <= $2 AND (next_attempt_at, id) > ($3, $4)
  ORDER BY next_attempt_at, id LIMIT ${PAGE}`;

// An account's secrets that have not expired at $2, newest first: [secret, expires_at].
const UNEXPIRED_SECRETS = `SELECT secret, expires_at FROM webhook_secrets
  WHERE account_id = $1 AND (expires_at IS NULL OR expires_at > $2) ORDER BY created_at DESC`;

/** What a delivery reads of a due message. */
type DueMessage = Pick<MessageRow, "id" | "accountId" | "url" | "payload" | "attemptCount" | "retryBase" | "updatedAt" | "nextAttemptAt">;

function dueMessage(accountId: string, v: unknown[]): DueMessage {
  return {
    id: v[0] as string,
    accountId,
    url: v[1] as string,
    payload: v[2] as string,
    attemptCount: Number(v[3]),
    retryBase: Number(v[4]),
    updatedAt: v[5] == null ? null : Number(v[5]),
    nextAttemptAt: Number(v[6]),
  };
}

// An attempt's outcome, batch by batch: one statement per batch, not per row.
// [id, message_id, attempt, status_code, latency_ms, response_snippet, error, next_attempt_at, created_at]
const INSERT_ATTEMPTS: RowsStatement = {
  width: 9,
  sqlite: (values) =>
    `INSERT INTO webhook_attempts (id, message_id, attempt, status_code, latency_ms, response_snippet, error, next_attempt_at, created_at)
    VALUES ${values}`,
  postgres: `INSERT INTO webhook_attempts (id, message_id, attempt, status_code, latency_ms, response_snippet, error, next_attempt_at, created_at)
    SELECT v->>0, v->>1, (v->>2)::int, (v->>3)::int, (v->>4)::int, v->>5, v->>6, (v->>7)::bigint, (v->>8)::bigint
    FROM jsonb_array_elements($1::jsonb) AS v`,
};
// [id, updated_at as the attempt read it, status, next_attempt_at, delivered_at, now]. A redelivery asked for while
// the attempt was under way moved updated_at: the outcome then leaves the message as the redelivery set it (due
// again) and only counts the attempt.
const UPDATE_MESSAGES: RowsStatement = {
  width: 6,
  sqlite: (values) => `WITH d(id, seen, status, next_at, delivered_at, now) AS (VALUES ${values})
    UPDATE webhook_messages SET attempt_count = attempt_count + 1,
      status = CASE WHEN updated_at IS d.seen THEN d.status ELSE webhook_messages.status END,
      next_attempt_at = CASE WHEN updated_at IS d.seen THEN d.next_at ELSE webhook_messages.next_attempt_at END,
      delivered_at = CASE WHEN updated_at IS d.seen THEN d.delivered_at ELSE webhook_messages.delivered_at END,
      updated_at = CASE WHEN updated_at IS d.seen THEN d.now ELSE updated_at END
    FROM d WHERE webhook_messages.id = d.id`,
  postgres: `UPDATE webhook_messages AS m SET attempt_count = m.attempt_count + 1,
      status = CASE WHEN m.updated_at IS NOT DISTINCT FROM d.seen THEN d.status ELSE m.status END,
      next_attempt_at = CASE WHEN m.updated_at IS NOT DISTINCT FROM d.seen THEN d.next_at ELSE m.next_attempt_at END,
      delivered_at = CASE WHEN m.updated_at IS NOT DISTINCT FROM d.seen THEN d.delivered_at ELSE m.delivered_at END,
      updated_at = CASE WHEN m.updated_at IS NOT DISTINCT FROM d.seen THEN d.now ELSE m.updated_at END
    FROM (SELECT v->>0 AS id, (v->>1)::bigint AS seen, v->>2 AS status, (v->>3)::bigint AS next_at,
        (v->>4)::bigint AS delivered_at, (v->>5)::bigint AS now
      FROM jsonb_array_elements($1::jsonb) AS v) AS d
    WHERE m.id = d.id`,
};

export type WebhookDeps = {
  db: Db;
  clock: Clock;
  logger: Logger;
  jobs: JobEngine;
  outbound: { allowPrivateNetworks: boolean; timeoutMs: number; resolve?: (host: string) => Promise<string[]> };
  random?: () => number;
  /** Told each attempt's outcome once it is recorded (metrics). */
  observeAttempt?: (outcome: "delivered" | "retrying" | "failed") => void;
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
  const random = deps.random ?? Math.random;
  const pageAll = createPager<MessageRow>(db.read, webhookMessages, [webhookMessages.accountId], "webhook message");
  const pageForVideo = createPager<MessageRow>(db.read, webhookMessages, [webhookMessages.accountId, webhookMessages.videoId], "webhook message");
  const p = sql.placeholder;

  /** An account's secrets that have not expired, newest first, as a delivery job holds them for a page of messages. */
  type Keys = { secret: string; expiresAt: number | null }[];

  /**
   * The secrets that sign a delivery at `now`, newest first; an account without one gets one. The expiry is checked
   * per delivery, so a rotated-out secret stops signing on time even in the middle of a page.
   */
  async function signingSecrets(accountId: string, keys: Keys, now: number): Promise<string[]> {
    const out: string[] = [];
    for (const k of keys) if (k.expiresAt === null || k.expiresAt > now) out.push(k.secret);
    if (out.length > 0) return out;
    const secret = await currentSecret(accountId);
    keys.unshift({ secret, expiresAt: null });
    return [secret];
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

  /** Makes sure the account's delivery job will run by `runAt` (one queued job per account absorbs the rest). */
  function schedule(tx: Orm, accountId: string, runAt?: number) {
    return jobs.enqueue(tx, WEBHOOK_JOB, { accountId }, {
      runAt,
      debounceKey: `webhook:${accountId}`,
      concurrencyKey: `webhook:${accountId}`,
      maxAttempts: DELIVERY_JOB_ATTEMPTS,
    });
  }

  // Statements on a transaction handle are prepared once per handle (SQLite's writer lives as long as the database):
  // built anew for every event, the insert cost several times what running it does.
  const inserts = new WeakMap<Orm, ReturnType<typeof prepareInsert>>();
  function prepareInsert(tx: Orm) {
    return tx
      .insert(webhookMessages)
      .values({
        id: p("id"),
        accountId: p("accountId"),
        event: p("event"),
        url: p("url"),
        videoId: p("videoId"),
        payload: p("payload"),
        status: "pending",
        nextAttemptAt: p("now"),
        createdAt: p("now"),
      })
      .returning()
      .prepare();
  }
  function insertOn(tx: Orm) {
    let s = inserts.get(tx);
    if (!s) inserts.set(tx, (s = prepareInsert(tx)));
    return s;
  }

  async function emit(tx: Orm, input: Emit): Promise<MessageRow> {
    const now = clock.now();
    // Time-ordered, so a burst of messages is later updated (and its attempts logged) a few pages at a time.
    const id = newSortableId("msg", now);
    const payload = JSON.stringify({ id, event: input.event, created_at: iso(now), data: input.data });
    const [row] = await insertOn(tx).execute({
      id,
      accountId: input.accountId,
      event: input.event,
      url: input.url,
      videoId: input.videoId ?? null,
      payload,
      now,
    });
    await schedule(tx, input.accountId);
    return row;
  }

  type AttemptFields = Partial<Pick<AttemptRow, "statusCode" | "latencyMs" | "responseSnippet" | "error" | "nextAttemptAt">>;
  /** One attempt's result, to be logged and applied to its message. */
  type Outcome = { message: DueMessage; attempt: number; fields: AttemptFields; status: "delivered" | "retrying" | "failed"; at: number };

  /**
   * Sends one message once and says what became of it (nothing is written here). Throws only when `signal` aborted
   * the attempt, whose outcome then does not count.
   */
  async function attempt(message: DueMessage, keys: Keys, signal: AbortSignal): Promise<Outcome> {
    const now = clock.now();
    const number = message.attemptCount + 1;
    const secrets = await signingSecrets(message.accountId, keys, now);
    const timestamp = Math.floor(now / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "vitrin-webhooks/1",
      "webhook-id": message.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(secrets, message.id, timestamp, message.payload),
    };
    // Where this attempt stands in the current retry schedule (a redelivery starts a new one).
    const position = number - message.retryBase;
    const last = position >= MAX_ATTEMPTS;
    const scheduled = last ? null : retryDelay(position, random);
    const outcome = (fields: AttemptFields, status: Outcome["status"]): Outcome => ({ message, attempt: number, fields, status, at: clock.now() });
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
      if (blocked || last) {
        logger.warn("webhook delivery gave up", { message_id: message.id, attempt: number, error });
        return outcome({ latencyMs, error }, "failed");
      }
      return outcome({ latencyMs, error, nextAttemptAt: clock.now() + scheduled! }, "retrying");
    }
    const latencyMs = Math.round(performance.now() - started);
    const snippet = utf8.decode(res.body);
    const status = res.status;
    if (status >= 200 && status < 300) return outcome({ statusCode: status, latencyMs, responseSnippet: snippet }, "delivered");
    // 410 Gone: the receiver says this endpoint is gone for good.
    if (status === 410 || last) {
      logger.warn("webhook delivery gave up", { message_id: message.id, attempt: number, status });
      return outcome({ statusCode: status, latencyMs, responseSnippet: snippet, error: `HTTP ${status}` }, "failed");
    }
    let delay = scheduled!;
    if (status === 429 || status >= 500) {
      const asked = parseRetryAfter(res.headers.get("retry-after"), clock.now());
      if (asked !== null) delay = Math.max(delay, Math.min(asked, MAX_RETRY_AFTER_MS));
    }
    return outcome({ statusCode: status, latencyMs, responseSnippet: snippet, error: `HTTP ${status}`, nextAttemptAt: clock.now() + delay }, "retrying");
  }

  /** Logs each attempt and moves its message on, in one transaction of two statements whatever the batch's size. */
  async function record(outcomes: Outcome[]): Promise<void> {
    const attempts = outcomes.map((o) => [
      newSortableId("att", o.at),
      o.message.id,
      o.attempt,
      o.fields.statusCode ?? null,
      o.fields.latencyMs ?? null,
      o.fields.responseSnippet ?? null,
      o.fields.error ?? null,
      o.fields.nextAttemptAt ?? null,
      o.at,
    ]);
    const messages = outcomes.map((o) => [
      o.message.id,
      o.message.updatedAt,
      o.status,
      o.status === "retrying" ? o.fields.nextAttemptAt! : null,
      o.status === "delivered" ? o.at : null,
      o.at,
    ]);
    // Lost in a power cut, these only mean the attempts are made again, which at-least-once delivery allows.
    await db.tx(
      async (tx) => {
        await runRows(tx, db.dialect, INSERT_ATTEMPTS, attempts);
        await runRows(tx, db.dialect, UPDATE_MESSAGES, messages);
      },
      { durable: false },
    );
    if (deps.observeAttempt) for (const o of outcomes) deps.observeAttempt(o.status);
  }

  /**
   * Writes outcomes as they come in, every account's together, a batch per transaction: whatever finished while the
   * previous batch was being written goes into the next, so the busier delivery gets, the more one commit carries.
   */
  let queued: Outcome[] = [];
  let queuedWritten: Promise<void> | null = null;
  let writing: Promise<unknown> = Promise.resolve();
  /** Queues one outcome; the promise settles once its batch is written (or could not be). */
  function recordLater(o: Outcome): Promise<void> {
    queued.push(o);
    const written = queuedWritten ?? startBatch();
    // A full batch is left to its write; the next outcome starts another.
    if (queued.length >= MAX_BATCH) {
      queued = [];
      queuedWritten = null;
    }
    return written;
  }
  /** Opens the batch `queued` is now; it is written once the previous batch is and this turn's outcomes are in. */
  function startBatch(): Promise<void> {
    const batch = queued;
    const written = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        writing = writing.then(() => {
          // Closed to newcomers from here on (unless it already was, full).
          if (queued === batch) {
            queued = [];
            queuedWritten = null;
          }
          return record(batch).then(resolve, reject);
        });
      });
    });
    // The drain that added to it awaits it; this keeps an early failure from counting as unhandled meanwhile.
    written.catch(() => {});
    queuedWritten = written;
    return written;
  }

  /**
   * The delivery job: sends the account's due messages, oldest due first, up to ACCOUNT_IN_FLIGHT at a time, until a
   * walk over them finds none left (or DRAIN_MS is up), logging every attempt. One runs per account at a time,
   * across every instance (its concurrency key), so no message is in two deliveries at once; a message emitted
   * meanwhile gets a queued job of its own (debounce key), which runs after this one. On shutdown it stops taking
   * messages and returns once those under way are recorded; the next run, here or elsewhere, sends the rest.
   */
  async function drain(accountId: string, signal: AbortSignal, shutdown?: AbortSignal): Promise<void> {
    const until = clock.now() + DRAIN_MS;
    // The batches this job's outcomes went into: a walk ends only once they are written.
    let written: Promise<void>[] = [];
    const flush = async () => {
      const all = written;
      written = [];
      await Promise.all(all);
    };
    // Deliveries in flight, and the drain loop waiting for one of them to end (it is the only waiter).
    let inFlight = 0;
    let waiting: (() => void) | null = null;
    const ended = () => new Promise<void>((resolve) => (waiting = resolve));
    const send = (message: DueMessage, keys: Keys) => {
      inFlight++;
      attempt(message, keys, signal)
        .then((o) => {
          const batch = recordLater(o);
          if (written[written.length - 1] !== batch) written.push(batch);
        })
        .catch((e) => {
          // Aborted (shutdown, lost lease, timeout): not recorded, so the message is sent again by whoever runs next.
          if (!signal.aborted) logger.error("webhook attempt failed unexpectedly", { message_id: message.id, err: e });
        })
        .finally(() => {
          inFlight--;
          const wake = waiting;
          waiting = null;
          wake?.();
        });
    };
    const settled = async () => {
      while (inFlight > 0) await ended();
    };
    // On shutdown it stops taking messages at once, and what is under way is still recorded.
    const stopped = () => signal.aborted || shutdown?.aborted === true || clock.now() >= until;
    try {
      for (;;) {
        // One walk over the due messages. Each is read once per walk: a message's place only moves when its outcome
        // is written, and a walk ends by waiting for every outcome to be.
        let cursor = { at: -1, after: "" };
        let sent = 0;
        for (;;) {
          if (stopped()) return;
          const now = clock.now();
          const page = (await queryValues(db.read, db.dialect, DUE_PAGE, [accountId, now, cursor.at, cursor.after])).map((v) => dueMessage(accountId, v));
          if (page.length === 0) break;
          // Read with each page, so a rotation reaches the next page's deliveries.
          const keys: Keys = (await queryValues(db.read, db.dialect, UNEXPIRED_SECRETS, [accountId, now])).map((v) => ({
            secret: v[0] as string,
            expiresAt: v[1] == null ? null : Number(v[1]),
          }));
          for (const message of page) {
            while (inFlight >= ACCOUNT_IN_FLIGHT) await ended();
            if (stopped()) return;
            send(message, keys);
            sent++;
          }
          if (page.length < PAGE) break;
          const last = page[page.length - 1]!;
          cursor = { at: last.nextAttemptAt!, after: last.id };
        }
        await settled();
        await flush();
        if (sent === 0) return;
      }
    } finally {
      await settled();
      await flush();
    }
  }

  jobs.register<{ accountId?: string; messageId?: string }>(
    WEBHOOK_JOB,
    async (job) => {
      // Jobs queued by earlier versions name one message; its account's job delivers it with the rest.
      const accountId = job.payload.accountId ?? (await accountOf(job.payload.messageId));
      if (!accountId) return;
      await drain(accountId, job.signal, job.shutdown);
      if (job.signal.aborted) return;
      // With the outcome, in one transaction: the run for the next retry that falls due (or for what is left when
      // DRAIN_MS ran out or the engine is shutting down). A message emitted meanwhile already has a job queued, and
      // this one merges into it.
      job.deferWrite(async (tx) => {
        const [next] = await tx
          .select({ at: min(webhookMessages.nextAttemptAt) })
          .from(webhookMessages)
          .where(and(eq(webhookMessages.accountId, accountId), isNotNull(webhookMessages.nextAttemptAt)));
        // Not before now: a successor due at its oldest message would be claimed ahead of accounts waiting longer.
        if (next?.at != null) await schedule(tx, accountId, Math.max(Number(next.at), clock.now()));
      });
    },
    {
      concurrency: ACCOUNTS_AT_ONCE,
      keyConcurrency: 1,
      maxAttempts: DELIVERY_JOB_ATTEMPTS,
      leaseMs: 60_000,
      timeoutMs: DRAIN_MS + deps.outbound.timeoutMs + 30_000,
    },
  );

  async function accountOf(messageId: string | undefined): Promise<string | null> {
    if (!messageId) return null;
    const [row] = await db.read.select({ accountId: webhookMessages.accountId }).from(webhookMessages).where(eq(webhookMessages.id, messageId)).limit(1);
    return row?.accountId ?? null;
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
          .select({ attemptCount: webhookMessages.attemptCount, updatedAt: webhookMessages.updatedAt })
          .from(webhookMessages)
          .where(and(eq(webhookMessages.accountId, accountId), eq(webhookMessages.id, id)))
          .limit(1);
        if (!row) throw errors.notFound("webhook message");
        const now = clock.now();
        await tx
          .update(webhookMessages)
          // updated_at always moves, so an attempt under way now can tell that a redelivery came after it.
          .set({ status: "pending", nextAttemptAt: now, retryBase: row.attemptCount, updatedAt: Math.max(now, (row.updatedAt ?? 0) + 1) })
          .where(eq(webhookMessages.id, id));
        await schedule(tx, accountId);
      });
      return this.get(accountId, id);
    },

    /** A signed `ping` to any URL, so integrators can check their receiver. */
    async ping(accountId: string, url: string) {
      const row = await db.tx((tx) => emit(tx, { accountId, event: "ping", url, data: { message: "Hello from vitrin" } }));
      return messageJson(row, []);
    },

    /**
     * Queues a delivery job for every account with messages waiting, due at its earliest: run when a worker starts,
     * so messages from before an upgrade, or whose job gave up, are never stranded.
     */
    async resume(): Promise<number> {
      const waiting = await db.read
        .select({ accountId: webhookMessages.accountId, at: min(webhookMessages.nextAttemptAt) })
        .from(webhookMessages)
        .where(isNotNull(webhookMessages.nextAttemptAt))
        .groupBy(webhookMessages.accountId);
      if (waiting.length === 0) return 0;
      await db.tx(async (tx) => {
        for (const w of waiting) await schedule(tx, w.accountId, Number(w.at));
      });
      return waiting.length;
    },

    /** Messages not yet delivered or given up on, and how long the longest-overdue one has been due (for metrics). */
    async backlog(): Promise<{ waiting: number; oldestDueMs: number }> {
      const [row] = await db.read
        .select({ waiting: count(), earliest: min(webhookMessages.nextAttemptAt) })
        .from(webhookMessages)
        .where(isNotNull(webhookMessages.nextAttemptAt));
      const earliest = row?.earliest == null ? null : Number(row.earliest);
      return { waiting: Number(row?.waiting ?? 0), oldestDueMs: earliest === null ? 0 : Math.max(0, clock.now() - earliest) };
    },

    /** Runs an account's delivery job in place (as the job engine would), for tests and tools. */
    drain,
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
