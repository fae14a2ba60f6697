// A top-up's life in the database: its JSON, the credits it buys, and the moves from pending to paid (booked
// exactly once however often it is reported), failed or expired.
import { and, eq, sql } from "drizzle-orm";
import type { Orm, schema } from "../db";
import { errors, iso } from "../kernel";
import type { PaymentOutcome } from "../plugins";
import { bookEntry } from "./balance";
import type { BillingDeps } from "./deps";

export const TOP_UP_EXPIRE_JOB = "topup.expire";
export const MIN_TOP_UP = 1000;

export type TopUpRow = typeof schema.topUps.$inferSelect;

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

/**
 * What a top-up may be, for a client to show before it starts one: the amounts allowed and, per currency, the credits
 * one major unit buys (a top-up of `amount` minor units buys ⌊amount × credits_per_unit / 100⌋, as creditsFor counts).
 */
export function topUpOptions(config: Pick<BillingDeps["config"], "currencies" | "creditRates" | "topUpMax">) {
  return {
    object: "top_up_options",
    min_amount: MIN_TOP_UP,
    max_amount: config.topUpMax,
    currencies: config.currencies.map((currency) => ({ currency, credits_per_unit: config.creditRates[currency] })),
  };
}

export async function loadTopUp(deps: BillingDeps, orm: Orm, id: string): Promise<TopUpRow | null> {
  const { topUps } = deps.db.schema;
  const [row] = await orm.select().from(topUps).where(eq(topUps.id, id)).limit(1);
  return row ?? null;
}

/** Marks a top-up paid and books its purchase, exactly once: safe to call twice at once or after a failure. */
export async function fulfil(deps: BillingDeps, topUpId: string): Promise<{ topUp: TopUpRow; credited: boolean }> {
  const { topUps } = deps.db.schema;
  const at = deps.clock.now();
  return deps.db.tx(async (tx) => {
    const row = await loadTopUp(deps, tx, topUpId);
    if (!row) throw errors.notFound("top-up");
    if (row.status === "paid") return { topUp: row, credited: false };
    const { created, row: entry } = await bookEntry(deps, tx, {
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
    if (created) {
      const data = { object: "top_up", id: row.id, amount: row.amount, currency: row.currency, credits: row.credits, balance: entry.balanceAfter };
      await deps.webhooks.publish(tx, { accountId: row.accountId, event: "balance.topped_up", data });
    }
    return { topUp: updated, credited: created };
  });
}

/** Records a failed or expired payment; a paid top-up never goes back. */
export async function settleUnpaid(deps: BillingDeps, topUpId: string, status: "failed" | "expired", reason: string | null) {
  const { topUps } = deps.db.schema;
  const at = deps.clock.now();
  await deps.db.tx((tx) =>
    tx
      .update(topUps)
      .set({ status, failureReason: reason, updatedAt: at })
      .where(and(eq(topUps.id, topUpId), sql`${topUps.status} IN ('pending', 'failed')`)),
  );
}

export async function applyOutcome(deps: BillingDeps, topUpId: string, outcome: PaymentOutcome | null, reason?: string) {
  if (outcome === "paid") return (await fulfil(deps, topUpId)).topUp;
  if (outcome === "failed") await settleUnpaid(deps, topUpId, "failed", reason ?? "The payment failed.");
  if (outcome === "expired") await settleUnpaid(deps, topUpId, "expired", null);
  return loadTopUp(deps, deps.db.read, topUpId);
}

/** The expiry job of a pending top-up: the provider is asked first, since a payment that just went through must not be expired. */
export async function expireTopUp(deps: BillingDeps, topUpId: string) {
  const row = await loadTopUp(deps, deps.db.read, topUpId);
  if (!row || row.status !== "pending") return;
  const { payment } = deps;
  if (payment.lookupPayment && row.providerReference) {
    const outcome = await payment.lookupPayment(row.providerReference);
    if (outcome === "paid") {
      await fulfil(deps, row.id);
      return;
    }
  }
  await settleUnpaid(deps, row.id, "expired", null);
}

/** When a pending top-up whose expiry job went dead is looked at again. */
const EXPIRY_RETRY_MS = 60 * 60 * 1000;

/**
 * The expiry job went dead: the provider could not be asked (or the database written) five times over. A pending
 * top-up is asked about again an hour on, since it may yet be paid, rather than left pending with nobody looking.
 */
export async function expiryDead(deps: BillingDeps, tx: Orm, topUpId: string) {
  const row = await loadTopUp(deps, tx, topUpId);
  if (row?.status === "pending") await deps.jobs.enqueue(tx, TOP_UP_EXPIRE_JOB, { topUpId }, { runAt: deps.clock.now() + EXPIRY_RETRY_MS });
}

export async function getTopUp(deps: BillingDeps, accountId: string, id: string) {
  const row = await loadTopUp(deps, deps.db.read, id);
  if (!row || row.accountId !== accountId) throw errors.notFound("top-up");
  return topUpJson(row);
}

/**
 * An operator's confirmation (admin API and CLI); exactly once. It books top-ups of the built-in manual provider,
 * and of the configured payment plugin when that says an operator confirms its top-ups (operatorConfirms).
 */
export async function completeManually(deps: BillingDeps, id: string) {
  const row = await loadTopUp(deps, deps.db.read, id);
  if (!row) throw errors.notFound("top-up");
  const configured = row.provider === deps.payment.name;
  if (row.provider !== "manual" && !configured) {
    // Whether that provider's top-ups are confirmed by hand is known only to its plugin, which is not the one running.
    throw errors.conflict(
      `This top-up is handled by ${row.provider}, not by the payment plugin configured here (${deps.payment.name}): only manual top-ups and those of the configured plugin, when an operator confirms its payments, can be confirmed by hand.`,
    );
  }
  if (row.provider !== "manual" && deps.payment.operatorConfirms !== true) {
    throw errors.conflict(`This top-up is handled by ${row.provider}, not confirmed by hand.`);
  }
  const { topUp, credited } = await fulfil(deps, id);
  return { ...topUpJson(topUp), credited };
}
