// Delivery: one job per account (its concurrency key lets one run at a time across every instance) sends the account's
// due messages, up to ACCOUNT_IN_FLIGHT at a time, and hands their outcomes to the batch writer. The job's lease
// covers every message it is sending: if its worker dies, the job is rescued and the messages whose outcome was not
// written are sent again (at least once, with the same webhook-id).
import { and, eq, isNotNull, min } from "drizzle-orm";
import { queryValues } from "../db";
import type { JobEngine } from "../jobs";
import { attempt, type AttemptDeps } from "./attempt";
import { DELIVERY_JOB_ATTEMPTS, scheduleDelivery, WEBHOOK_JOB } from "./outbox";
import type { OutcomeWriter } from "./outcomes";
import { endpointKeys } from "./endpoints";
import { unexpiredKeys } from "./secrets";
import type { DueMessage, PageKeys } from "./types";

/** Deliveries in flight to one account at a time: a receiver's fair share, whatever else is waiting. */
const ACCOUNT_IN_FLIGHT = 8;
/** Accounts whose messages one instance delivers at once (each with up to ACCOUNT_IN_FLIGHT in flight). */
const ACCOUNTS_AT_ONCE = 32;
/** Due messages read at a time. */
const PAGE = 64;
/** After a delivery job went dead (its runs kept failing), when a fresh one looks at the account's messages again. */
const DEAD_RUN_RETRY_MS = 60_000;
/** A delivery job hands over to a fresh one after this long, so other accounts get a turn at its slot. */
const DRAIN_MS = 30_000;

export type DeliveryDeps = AttemptDeps & { jobs: JobEngine; writer: OutcomeWriter };

// An account's due messages after a cursor (next_attempt_at, id), in the order they fell due (webhook_messages_due_idx):
// [id, url, payload, attempt_count, retry_base, updated_at, next_attempt_at, endpoint_id].
const DUE_PAGE = `SELECT id, url, payload, attempt_count, retry_base, updated_at, next_attempt_at, endpoint_id FROM webhook_messages
  WHERE account_id = $1 AND next_attempt_at IS NOT NULL AND next_attempt_at <= $2 AND (next_attempt_at, id) > ($3, $4)
  ORDER BY next_attempt_at, id LIMIT ${PAGE}`;

type Cursor = { at: number; after: string };

async function duePage(deps: DeliveryDeps, accountId: string, now: number, cursor: Cursor): Promise<DueMessage[]> {
  const rows = await queryValues(deps.db.read, deps.db.dialect, DUE_PAGE, [accountId, now, cursor.at, cursor.after]);
  return rows.map((v) => ({
    id: v[0] as string,
    accountId,
    url: v[1] as string,
    payload: v[2] as string,
    attemptCount: Number(v[3]),
    retryBase: Number(v[4]),
    updatedAt: v[5] == null ? null : Number(v[5]),
    nextAttemptAt: Number(v[6]),
    endpointId: (v[7] as string | null) ?? null,
  }));
}

/** One drain's deliveries in flight, and the batches their outcomes went into (a walk ends only once they are written). */
class InFlight {
  count = 0;
  private written: Promise<void>[] = [];
  /** The drain loop waiting for a delivery to end (it is the only waiter). */
  private waiting: (() => void) | null = null;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly signal: AbortSignal,
  ) {}

  send(message: DueMessage, keys: PageKeys): void {
    this.count++;
    attempt(this.deps, message, keys, this.signal)
      .then((o) => {
        const batch = this.deps.writer.add(o);
        if (this.written[this.written.length - 1] !== batch) this.written.push(batch);
      })
      .catch((e) => {
        // Aborted (shutdown, lost lease, timeout): not recorded, so the message is sent again by whoever runs next.
        if (!this.signal.aborted) this.deps.logger.error("webhook attempt failed unexpectedly", { message_id: message.id, err: e });
      })
      .finally(() => {
        this.count--;
        const wake = this.waiting;
        this.waiting = null;
        wake?.();
      });
  }

  /** Settles when one delivery ends. */
  ended(): Promise<void> {
    return new Promise<void>((resolve) => (this.waiting = resolve));
  }

  /** Settles once every delivery has ended and every outcome is written. */
  async settle(): Promise<void> {
    while (this.count > 0) await this.ended();
    const all = this.written;
    this.written = [];
    await Promise.all(all);
  }
}

/**
 * The delivery job: sends the account's due messages, oldest due first, up to ACCOUNT_IN_FLIGHT at a time, until a
 * walk over them finds none left (or DRAIN_MS is up), logging every attempt. One runs per account at a time,
 * across every instance (its concurrency key), so no message is in two deliveries at once; a message emitted
 * meanwhile gets a queued job of its own (debounce key), which runs after this one. On shutdown it stops taking
 * messages and returns once those under way are recorded; the next run, here or elsewhere, sends the rest.
 */
export async function drain(deps: DeliveryDeps, accountId: string, signal: AbortSignal, shutdown?: AbortSignal): Promise<void> {
  const until = deps.clock.now() + DRAIN_MS;
  const flight = new InFlight(deps, signal);
  // On shutdown it stops taking messages at once, and what is under way is still recorded.
  const stopped = () => signal.aborted || shutdown?.aborted === true || deps.clock.now() >= until;
  try {
    for (;;) {
      // One walk over the due messages. Each is read once per walk: a message's place only moves when its outcome
      // is written, and a walk ends by waiting for every outcome to be.
      let cursor: Cursor = { at: -1, after: "" };
      let sent = 0;
      for (;;) {
        if (stopped()) return;
        const now = deps.clock.now();
        const page = await duePage(deps, accountId, now, cursor);
        if (page.length === 0) break;
        // Read with each page, so a rotation reaches the next page's deliveries.
        const account = await unexpiredKeys(deps, accountId, now);
        const endpoints = await endpointKeys(deps, page.flatMap((m) => (m.endpointId ? [m.endpointId] : [])));
        const keys: PageKeys = { account, endpoints };
        for (const message of page) {
          while (flight.count >= ACCOUNT_IN_FLIGHT) await flight.ended();
          if (stopped()) return;
          flight.send(message, keys);
          sent++;
        }
        if (page.length < PAGE) break;
        const last = page[page.length - 1]!;
        cursor = { at: last.nextAttemptAt!, after: last.id };
      }
      await flight.settle();
      if (sent === 0) return;
    }
  } finally {
    await flight.settle();
  }
}

/** The account a message belongs to: jobs queued by earlier versions name one message rather than an account. */
async function accountOf(deps: DeliveryDeps, messageId: string | undefined): Promise<string | null> {
  if (!messageId) return null;
  const { webhookMessages } = deps.db.schema;
  const [row] = await deps.db.read.select({ accountId: webhookMessages.accountId }).from(webhookMessages).where(eq(webhookMessages.id, messageId)).limit(1);
  return row?.accountId ?? null;
}

/** Gives the job engine the delivery job. */
export function registerDelivery(deps: DeliveryDeps): void {
  const { webhookMessages } = deps.db.schema;
  deps.jobs.register<{ accountId?: string; messageId?: string }>(
    WEBHOOK_JOB,
    async (job) => {
      // Jobs queued by earlier versions name one message; its account's job delivers it with the rest.
      const accountId = job.payload.accountId ?? (await accountOf(deps, job.payload.messageId));
      if (!accountId) return;
      await drain(deps, accountId, job.signal, job.shutdown);
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
        if (next?.at != null) await scheduleDelivery(deps.jobs, tx, accountId, Math.max(Number(next.at), deps.clock.now()));
      });
    },
    {
      concurrency: ACCOUNTS_AT_ONCE,
      keyConcurrency: 1,
      maxAttempts: DELIVERY_JOB_ATTEMPTS,
      leaseMs: 60_000,
      timeoutMs: DRAIN_MS + deps.outbound.timeoutMs + 30_000,
      // Its messages are still due: a fresh run a minute on, rather than waiting for the next event or restart.
      onDead: async (tx, job) => {
        const payload = (job.payload ?? {}) as { accountId?: unknown; messageId?: unknown };
        const accountId = typeof payload.accountId === "string" ? payload.accountId : typeof payload.messageId === "string" ? await accountOf(deps, payload.messageId) : null;
        if (accountId) await scheduleDelivery(deps.jobs, tx, accountId, deps.clock.now() + DEAD_RUN_RETRY_MS);
      },
    },
  );
}
