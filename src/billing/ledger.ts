// The credit ledger: every change to an account's credits is one transaction row written in the same database
// transaction as the balance update, so credits always equal the sum of the account's rows.
import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { Orm, Schema, schema } from "../db";
import { iso, newId } from "../kernel";
import { errors } from "../kernel";

export type TransactionType = "purchase" | "usage" | "refund" | "grant" | "adjustment";

export type LedgerEntry = {
  accountId: string;
  /** Positive adds credits, negative spends them. Never zero. */
  amount: number;
  type: TransactionType;
  description: string;
  platform: string;
  /** Unique cause (e.g. `video:vid_…:usage`); booking the same reference twice returns the first row. */
  reference?: string | null;
  at: number;
};

export type TransactionRow = typeof schema.transactions.$inferSelect;

/**
 * Books one entry inside the caller's transaction (`tables` are db.schema's). A debit that would take the balance below zero throws 402;
 * a reference booked before returns that earlier row unchanged (`created: false`).
 */
export async function book(
  tables: Pick<Schema, "accounts" | "transactions">,
  tx: Orm,
  entry: LedgerEntry,
): Promise<{ row: TransactionRow; created: boolean }> {
  const { accounts, transactions } = tables;
  if (!Number.isSafeInteger(entry.amount) || entry.amount === 0) throw new Error("ledger amount must be a non-zero integer");
  if (entry.reference) {
    const [earlier] = await tx.select().from(transactions).where(eq(transactions.reference, entry.reference)).limit(1);
    if (earlier) return { row: earlier, created: false };
  }
  // The guard in the WHERE clause makes the check and the update one statement, so no interleaving can overdraw,
  // nor take a balance past the integers a JS number holds exactly (it would read back rounded).
  const guard =
    entry.amount < 0 ? gte(accounts.credits, -entry.amount) : lte(accounts.credits, Number.MAX_SAFE_INTEGER - entry.amount);
  const updated = await tx
    .update(accounts)
    .set({ credits: sql`${accounts.credits} + ${entry.amount}`, updatedAt: entry.at })
    .where(and(eq(accounts.id, entry.accountId), guard))
    .returning({ credits: accounts.credits });
  if (updated.length === 0) {
    const [acct] = await tx.select({ credits: accounts.credits }).from(accounts).where(eq(accounts.id, entry.accountId));
    if (!acct) throw errors.notFound("account");
    if (entry.amount > 0) throw errors.invalidField("amount", `would take the balance above ${Number.MAX_SAFE_INTEGER} credits`);
    throw errors.insufficientCredits(-entry.amount, acct.credits);
  }
  const [row] = await tx
    .insert(transactions)
    .values({
      id: newId("txn"),
      accountId: entry.accountId,
      amount: entry.amount,
      type: entry.type,
      description: entry.description,
      platform: entry.platform,
      reference: entry.reference ?? null,
      balanceAfter: updated[0].credits,
      createdAt: entry.at,
    })
    .returning();
  return { row, created: true };
}

export function transactionJson(row: TransactionRow) {
  return {
    id: row.id,
    object: "transaction",
    amount: row.amount,
    type: row.type,
    description: row.description,
    platform: row.platform,
    balance_after: row.balanceAfter,
    created_at: iso(row.createdAt),
  };
}
