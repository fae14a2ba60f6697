// Attempt outcomes written in batches: every account's together, two statements per transaction whatever the batch's
// size. A row write per delivery step had capped delivery near 8,000/s; batched, a delivery costs two row writes.
import { runRows, type Db, type RowsStatement } from "../db";
import { newSortableId } from "../jobs";
import type { Outcome, WebhookDeps } from "./types";

/** The most outcomes written in one transaction. */
const MAX_BATCH = 512;

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

export type OutcomeDeps = { db: Db; observeAttempt?: WebhookDeps["observeAttempt"] };

/** Logs each attempt and moves its message on, in one transaction of two statements whatever the batch's size. */
export async function recordOutcomes(deps: OutcomeDeps, outcomes: Outcome[]): Promise<void> {
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
  const { db } = deps;
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
export class OutcomeWriter {
  /** The open batch, and the promise that settles once it is written. */
  private queued: Outcome[] = [];
  private queuedWritten: Promise<void> | null = null;
  /** The last batch's write: batches are written one after another. */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: OutcomeDeps) {}

  /** Queues one outcome; the promise settles once its batch is written (or could not be). */
  add(o: Outcome): Promise<void> {
    this.queued.push(o);
    const written = this.queuedWritten ?? this.startBatch();
    // A full batch is left to its write; the next outcome starts another.
    if (this.queued.length >= MAX_BATCH) this.close();
    return written;
  }

  private close(): void {
    this.queued = [];
    this.queuedWritten = null;
  }

  /** Opens the batch `queued` is now; it is written once the previous batch is and this turn's outcomes are in. */
  private startBatch(): Promise<void> {
    const batch = this.queued;
    const written = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.writing = this.writing.then(() => {
          // Closed to newcomers from here on (unless it already was, full).
          if (this.queued === batch) this.close();
          return recordOutcomes(this.deps, batch).then(resolve, reject);
        });
      });
    });
    // The drain that added to it awaits it; this keeps an early failure from counting as unhandled meanwhile.
    written.catch(() => {});
    this.queuedWritten = written;
    return written;
  }
}
