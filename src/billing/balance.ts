// An account's balance seen from billing: booking with the low-balance signal, the balance and transaction list,
// and the integrity check (credits = sum of transactions for every account).
import { eq, sql } from "drizzle-orm";
import { createPager, type Db, type Orm, type PageQuery } from "../db";
import { errors } from "../kernel";
import type { Webhooks } from "../webhooks";
import type { BillingDeps } from "./deps";
import { book, transactionJson, type LedgerEntry, type TransactionRow } from "./ledger";

/** What the low-balance signal needs: the threshold (0 turns it off) and where the account's events go. */
export type LowBalanceAlert = { threshold: number; webhooks: Pick<Webhooks, "publish"> };

/**
 * Queues a `balance.low` webhook to the account's receivers, in the booking's transaction, when the entry just booked
 * was a debit that took the balance from at or above the threshold to below it (once per crossing). Every debit
 * passes here: video charges (bookEntry) and operators' corrections (the accounts folder's grant).
 */
export async function alertLowBalance(alert: LowBalanceAlert, tx: Orm, entry: LedgerEntry, booked: { row: TransactionRow; created: boolean }) {
  const { threshold } = alert;
  if (!booked.created || entry.amount >= 0 || threshold <= 0) return;
  const after = booked.row.balanceAfter;
  const before = after - entry.amount;
  if (before >= threshold && after < threshold) {
    await alert.webhooks.publish(tx, { accountId: entry.accountId, event: "balance.low", data: { object: "balance", credits: after, threshold } });
  }
}

/** Books a ledger entry, with the low-balance signal. */
export async function bookEntry(deps: BillingDeps, tx: Orm, entry: LedgerEntry) {
  const result = await book(deps.db.schema, tx, entry);
  await alertLowBalance({ threshold: deps.config.lowBalanceThreshold, webhooks: deps.webhooks }, tx, entry, result);
  return result;
}

export async function balance(deps: BillingDeps, accountId: string) {
  const { accounts } = deps.db.schema;
  const [row] = await deps.db.read.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!row) throw errors.notFound("account");
  return { object: "balance", credits: row.credits, is_premium: row.isPremium, language: row.language };
}

/** The prepared pager over an account's transactions (built once per instance: preparing costs more than paging). */
export function transactionPager(db: Db) {
  const { transactions } = db.schema;
  return createPager<TransactionRow>(db.read, transactions, [transactions.accountId], "transaction");
}

export async function listTransactions(page: ReturnType<typeof transactionPager>, accountId: string, query: PageQuery) {
  const found = await page([accountId], query);
  return { data: found.data.map(transactionJson), has_more: found.has_more };
}

/** Every account whose credits differ from the sum of its transactions (empty when the ledger is sound). */
export async function ledgerCheck(deps: BillingDeps) {
  const { accounts } = deps.db.schema;
  const rows = await deps.db.read
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
}
