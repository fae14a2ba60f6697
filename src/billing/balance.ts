// An account's balance seen from billing: booking with the low-balance signal, the balance and transaction list,
// and the integrity check (credits = sum of transactions for every account).
import { eq, sql } from "drizzle-orm";
import { createPager, type Db, type Orm, type PageQuery } from "../db";
import { errors } from "../kernel";
import type { BillingDeps } from "./deps";
import { book, transactionJson, type LedgerEntry, type TransactionRow } from "./ledger";

/**
 * Books a ledger entry and, when a debit takes the balance below the threshold, queues a `balance.low` webhook
 * to the account's receivers in the same transaction.
 */
export async function bookEntry(deps: BillingDeps, tx: Orm, entry: LedgerEntry) {
  const result = await book(deps.db.schema, tx, entry);
  const threshold = deps.config.lowBalanceThreshold;
  if (result.created && entry.amount < 0 && threshold > 0) {
    const after = result.row.balanceAfter;
    const before = after - entry.amount;
    if (before >= threshold && after < threshold) {
      await deps.webhooks.publish(tx, { accountId: entry.accountId, event: "balance.low", data: { object: "balance", credits: after, threshold } });
    }
  }
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
