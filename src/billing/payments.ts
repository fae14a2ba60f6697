// The payment provider's side of a top-up: starting a payment, its verified notices, and the payer's return.
import { eq } from "drizzle-orm";
import { errors, newId } from "../kernel";
import type { PaymentNotice } from "../plugins";
import { checkAmount } from "./amounts";
import type { BillingDeps } from "./deps";
import { applyOutcome, creditsFor, loadTopUp, MIN_TOP_UP, settleUnpaid, TOP_UP_EXPIRE_JOB, topUpJson, type TopUpRow } from "./top-ups";

export type TopUpRequest = { amount: number; currency: string };

/** The credits a top-up request buys, or a 422 naming what is wrong with it. */
function checkTopUp(deps: BillingDeps, input: TopUpRequest): number {
  const { config } = deps;
  checkAmount("amount", input.amount, MIN_TOP_UP, config.topUpMax, "minor units");
  if (!config.currencies.includes(input.currency)) {
    throw errors.invalidField("currency", `must be one of ${config.currencies.join(", ")} (lowercase)`);
  }
  const credits = creditsFor(input.amount, input.currency, config.creditRates);
  if (credits < 1) throw errors.invalidField("amount", "is too small to buy a single credit");
  // A huge rate could still buy more credits than a number holds exactly.
  if (!Number.isSafeInteger(credits)) throw errors.invalidField("amount", "buys more credits than the ledger can hold");
  return credits;
}

type PendingTopUp = { id: string; accountId: string; input: TopUpRequest; credits: number; at: number; expiresAt: number };

/**
 * Writes the pending top-up and its expiry job in one transaction. It does not carry the request out: until its
 * payment address is stored nobody can pay it, so a retry of a request that died before then starts afresh (the
 * orphan expires unpaid) instead of being told that the top-up was made.
 */
async function insertTopUp(deps: BillingDeps, { id, accountId, input, credits, at, expiresAt }: PendingTopUp) {
  const { topUps } = deps.db.schema;
  await deps.db.tx(async (tx) => {
    await tx.insert(topUps).values({
      id,
      accountId,
      amount: input.amount,
      currency: input.currency,
      credits,
      status: "pending",
      provider: deps.payment.name,
      expiresAt,
      createdAt: at,
      updatedAt: at,
    });
    await deps.jobs.enqueue(tx, TOP_UP_EXPIRE_JOB, { topUpId: id }, { runAt: expiresAt, dedupeKey: `topup-expire:${id}` });
  }, { carriesOut: false });
}

export async function startTopUp(deps: BillingDeps, accountId: string, input: TopUpRequest) {
  const { config, payment, db, clock } = deps;
  const { topUps } = db.schema;
  const credits = checkTopUp(deps, input);
  const id = newId("top");
  const at = clock.now();
  const expiresAt = at + config.topUpTtlMs;
  await insertTopUp(deps, { id, accountId, input, credits, at, expiresAt });
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
    deps.logger.error("payment provider refused a top-up", { top_up: id, err: e });
    await settleUnpaid(deps, id, "failed", `The payment provider could not start the payment: ${(e as Error).message}`);
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
}

/** A verified provider notification: deduplicated by event id, then applied. */
export async function handleNotice(deps: BillingDeps, notice: PaymentNotice) {
  const { db, clock, payment } = deps;
  const { paymentEvents } = db.schema;
  const fresh = await db.tx(async (tx) => {
    const inserted = await tx
      .insert(paymentEvents)
      .values({ id: notice.eventId, provider: payment.name, type: notice.type, topUpId: notice.topUpId, receivedAt: clock.now() })
      .onConflictDoNothing()
      .returning({ id: paymentEvents.id });
    return inserted.length > 0;
  });
  if (!fresh || !notice.topUpId || !notice.outcome) return { duplicate: !fresh };
  const row = await loadTopUp(deps, db.read, notice.topUpId);
  if (!row) {
    deps.logger.warn("payment notice for an unknown top-up", { event: notice.eventId, top_up: notice.topUpId });
    return { duplicate: false };
  }
  await applyOutcome(deps, row.id, notice.outcome);
  return { duplicate: false };
}

/** The payer came back from the provider: ask it how the payment stands and book it if paid. */
export async function checkReturn(deps: BillingDeps, id: string): Promise<TopUpRow | null> {
  const row = await loadTopUp(deps, deps.db.read, id);
  if (!row || row.status === "paid" || !row.providerReference || !deps.payment.lookupPayment) return row;
  return applyOutcome(deps, id, await deps.payment.lookupPayment(row.providerReference));
}
