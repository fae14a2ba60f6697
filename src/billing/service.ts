// Balance, transactions and top-ups: the payment plugin collects money, and this books it into the ledger exactly
// once however often (and in whatever order) the provider reports it. Also the low-balance signal and the
// integrity check (credits = sum of transactions for every account).
import { and, eq, sql } from "drizzle-orm";
import type { Db, Orm } from "../db";
import type { Clock } from "../kernel";
import type { topUps } from "../db/schema";
import { iso, newId } from "../kernel";
import { createPager, type PageQuery } from "../db/pagination";
import { errors } from "../kernel";
import type { Config } from "../config";
import type { Logger } from "../kernel";
import type { JobEngine } from "../jobs";
import type { PaymentNotice, PaymentOutcome, PaymentPlugin } from "../plugins";
import type { Webhooks } from "../webhooks";
import { book, transactionJson, type LedgerEntry, type TransactionRow } from "./index";
import { checkAmount } from "./amounts";

export const TOP_UP_EXPIRE_JOB = "topup.expire";
export const MIN_TOP_UP = 1000;

export type TopUpRow = typeof topUps.$inferSelect;

export type BillingDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  logger: Logger;
  payment: PaymentPlugin;
  jobs: JobEngine;
  webhooks: Webhooks;
};

export function topUpJson(row: TopUpRow) {
  return {
    id: row.id,
    object: "top_up",
    amount: row.amount,
    currency: row.currency,
    credits: row.credits,
    status: row.status,
    platform: row.provider,
    payment_url: row.paymentUrl,
    failure_reason: row.failureReason,
    expires_at: iso(row.expiresAt),
    paid_at: iso(row.paidAt),
    created_at: iso(row.createdAt),
  };
}

/** Credits bought by `amount` minor units of `currency` at the configured rate (per major unit), rounded down. */
export function creditsFor(amount: number, currency: string, rates: Record<string, number>): number {
  return Math.floor((amount * rates[currency]) / 100 + 1e-9);
}

export function createBilling(deps: BillingDeps) {
  const { db, clock, config, logger, payment, jobs, webhooks } = deps;
  const { accounts, paymentEvents, topUps, transactions } = db.schema;
  const pageTransactions = createPager<TransactionRow>(db.read, transactions, [transactions.accountId], "transaction");

  /**
   * Books a ledger entry and, when a debit takes the balance below the threshold, queues a `balance.low` webhook
   * to the account's webhook URL in the same transaction.
   */
  async function bookEntry(tx: Orm, entry: LedgerEntry) {
    const result = await book(db.schema, tx, entry);
    const threshold = config.lowBalanceThreshold;
    if (result.created && entry.amount < 0 && threshold > 0) {
      const after = result.row.balanceAfter;
      const before = after - entry.amount;
      if (before >= threshold && after < threshold) {
        const [acct] = await tx.select({ url: accounts.webhookUrl }).from(accounts).where(eq(accounts.id, entry.accountId));
        if (acct?.url) {
          await webhooks.emit(tx, {
            accountId: entry.accountId,
            event: "balance.low",
            url: acct.url,
            data: { object: "balance", credits: after, threshold },
          });
        }
      }
    }
    return result;
  }

  async function loadTopUp(orm: Orm, id: string): Promise<TopUpRow | null> {
    const [row] = await orm.select().from(topUps).where(eq(topUps.id, id)).limit(1);
    return row ?? null;
  }

  /** Marks a top-up paid and books its purchase, exactly once: safe to call twice at once or after a failure. */
  async function fulfil(topUpId: string): Promise<{ topUp: TopUpRow; credited: boolean }> {
    const at = clock.now();
    return db.tx(async (tx) => {
      const row = await loadTopUp(tx, topUpId);
      if (!row) throw errors.notFound("top-up");
      if (row.status === "paid") return { topUp: row, credited: false };
      const { created } = await bookEntry(tx, {
        accountId: row.accountId,
        amount: row.credits,
        type: "purchase",
        description: `Top-up of ${(row.amount / 100).toFixed(2)} ${row.currency.toUpperCase()}`,
        platform: row.provider,
        reference: `topup:${row.id}`,
        at,
      });
      const [updated] = await tx
        .update(topUps)
        .set({ status: "paid", paidAt: at, failureReason: null, updatedAt: at })
        .where(eq(topUps.id, row.id))
        .returning();
      return { topUp: updated, credited: created };
    });
  }

  /** Records a failed or expired payment; a paid top-up never goes back. */
  async function settleUnpaid(topUpId: string, status: "failed" | "expired", reason: string | null) {
    const at = clock.now();
    await db.tx((tx) =>
      tx
        .update(topUps)
        .set({ status, failureReason: reason, updatedAt: at })
        .where(and(eq(topUps.id, topUpId), sql`${topUps.status} IN ('pending', 'failed')`)),
    );
  }

  async function applyOutcome(topUpId: string, outcome: PaymentOutcome | null, reason?: string) {
    if (outcome === "paid") return (await fulfil(topUpId)).topUp;
    if (outcome === "failed") await settleUnpaid(topUpId, "failed", reason ?? "The payment failed.");
    if (outcome === "expired") await settleUnpaid(topUpId, "expired", null);
    return loadTopUp(db.read, topUpId);
  }

  jobs.register<{ topUpId: string }>(
    TOP_UP_EXPIRE_JOB,
    async (job) => {
      const row = await loadTopUp(db.read, job.payload.topUpId);
      if (!row || row.status !== "pending") return;
      // Ask the provider first: a payment that just went through must not be expired.
      if (payment.lookupPayment && row.providerReference) {
        const outcome = await payment.lookupPayment(row.providerReference);
        if (outcome === "paid") {
          await fulfil(row.id);
          return;
        }
      }
      await settleUnpaid(row.id, "expired", null);
    },
    { concurrency: 4, maxAttempts: 5 },
  );

  return {
    bookEntry,
    fulfil,
    /** VITRIN_TOP_UP_MAX, for the route's schema. */
    topUpMax: config.topUpMax,

    async balance(accountId: string) {
      const [row] = await db.read.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
      if (!row) throw errors.notFound("account");
      return { object: "balance", credits: row.credits, is_premium: row.isPremium, language: row.language };
    },

    async transactions(accountId: string, query: PageQuery) {
      const page = await pageTransactions([accountId], query);
      return { data: page.data.map(transactionJson), has_more: page.has_more };
    },

    async startTopUp(accountId: string, input: { amount: number; currency: string }) {
      checkAmount("amount", input.amount, MIN_TOP_UP, config.topUpMax, "minor units");
      if (!config.currencies.includes(input.currency)) {
        throw errors.invalidField("currency", `must be one of ${config.currencies.join(", ")} (lowercase)`);
      }
      const credits = creditsFor(input.amount, input.currency, config.creditRates);
      if (credits < 1) throw errors.invalidField("amount", "is too small to buy a single credit");
      // A huge rate could still buy more credits than a number holds exactly.
      if (!Number.isSafeInteger(credits)) throw errors.invalidField("amount", "buys more credits than the ledger can hold");
      const at = clock.now();
      const id = newId("top");
      const expiresAt = at + config.topUpTtlMs;
      await db.tx(async (tx) => {
        await tx.insert(topUps).values({
          id,
          accountId,
          amount: input.amount,
          currency: input.currency,
          credits,
          status: "pending",
          provider: payment.name,
          expiresAt,
          createdAt: at,
          updatedAt: at,
        });
        await jobs.enqueue(tx, TOP_UP_EXPIRE_JOB, { topUpId: id }, { runAt: expiresAt, dedupeKey: `topup-expire:${id}` });
      });
      // The provider is called outside the transaction (network I/O); the row exists first so nothing is lost.
      let started;
      try {
        started = await payment.createPayment({
          topUpId: id,
          accountId,
          amount: input.amount,
          currency: input.currency,
          credits,
          successUrl: `${config.publicUrl}/pay/${payment.name}/return?top_up=${id}`,
          cancelUrl: `${config.publicUrl}/pay/${payment.name}/cancel?top_up=${id}`,
          expiresAt,
        });
      } catch (e) {
        logger.error("payment provider refused a top-up", { top_up: id, err: e });
        await settleUnpaid(id, "failed", `The payment provider could not start the payment: ${(e as Error).message}`);
        throw errors.unavailable("The payment provider could not start the payment; try again later.");
      }
      const [row] = await db.tx((tx) =>
        tx
          .update(topUps)
          .set({ paymentUrl: started.paymentUrl, providerReference: started.providerReference ?? null, updatedAt: clock.now() })
          .where(eq(topUps.id, id))
          .returning(),
      );
      return topUpJson(row);
    },

    async getTopUp(accountId: string, id: string) {
      const row = await loadTopUp(db.read, id);
      if (!row || row.accountId !== accountId) throw errors.notFound("top-up");
      return topUpJson(row);
    },

    /** For the payer-facing pages, which know only the (unguessable) top-up id. */
    loadTopUp: (id: string) => loadTopUp(db.read, id),

    /** An operator's confirmation for the manual provider (admin API and CLI); exactly once. */
    async completeManually(id: string) {
      const row = await loadTopUp(db.read, id);
      if (!row) throw errors.notFound("top-up");
      if (row.provider !== "manual") throw errors.conflict(`This top-up is handled by ${row.provider}, not confirmed by hand.`);
      const { topUp, credited } = await fulfil(id);
      return { ...topUpJson(topUp), credited };
    },

    /** A verified provider notification: deduplicated by event id, then applied. */
    async handleNotice(notice: PaymentNotice) {
      const fresh = await db.tx(async (tx) => {
        const inserted = await tx
          .insert(paymentEvents)
          .values({ id: notice.eventId, provider: payment.name, type: notice.type, topUpId: notice.topUpId, receivedAt: clock.now() })
          .onConflictDoNothing()
          .returning({ id: paymentEvents.id });
        return inserted.length > 0;
      });
      if (!fresh || !notice.topUpId || !notice.outcome) return { duplicate: !fresh };
      const row = await loadTopUp(db.read, notice.topUpId);
      if (!row) {
        logger.warn("payment notice for an unknown top-up", { event: notice.eventId, top_up: notice.topUpId });
        return { duplicate: false };
      }
      await applyOutcome(row.id, notice.outcome);
      return { duplicate: false };
    },

    /** The payer came back from the provider: ask it how the payment stands and book it if paid. */
    async checkReturn(id: string): Promise<TopUpRow | null> {
      const row = await loadTopUp(db.read, id);
      if (!row || row.status === "paid" || !row.providerReference || !payment.lookupPayment) return row;
      return applyOutcome(id, await payment.lookupPayment(row.providerReference));
    },

    /** Every account whose credits differ from the sum of its transactions (empty when the ledger is sound). */
    async ledgerCheck() {
      const rows = await db.read
        .select({
          id: accounts.id,
          credits: accounts.credits,
          // Qualified by hand: inside the subquery an unqualified "id" would mean the transaction's id.
          sum: sql<number>`coalesce((SELECT sum(t.amount) FROM transactions AS t WHERE t.account_id = "accounts"."id"), 0)`,
        })
        .from(accounts);
      return {
        accounts: rows.length,
        mismatches: rows.filter((r) => Number(r.sum) !== r.credits).map((r) => ({ account_id: r.id, credits: r.credits, sum: Number(r.sum) })),
      };
    },
  };
}

export type Billing = ReturnType<typeof createBilling>;
