// Balance, transactions and top-ups: the payment plugin collects money, and this books it into the ledger exactly
// once however often (and in whatever order) the provider reports it. The factory only assembles the named
// functions of balance.ts, top-ups.ts and payments.ts over its dependencies and registers the top-up expiry job.
import type { Orm, PageQuery } from "../db";
import type { PaymentNotice } from "../plugins";
import { balance, bookEntry, ledgerCheck, listTransactions, transactionPager } from "./balance";
import type { BillingDeps } from "./deps";
import type { LedgerEntry } from "./ledger";
import { checkReturn, handleNotice, startTopUp, type TopUpRequest } from "./payments";
import { listTopUps, topUpPagers, type TopUpListQuery } from "./top-up-list";
import { completeManually, expireTopUp, expiryDead, fulfil, getTopUp, loadTopUp, TOP_UP_EXPIRE_JOB, topUpOptions } from "./top-ups";

export type { BillingDeps } from "./deps";
export { creditsFor, MIN_TOP_UP, TOP_UP_EXPIRE_JOB, topUpJson, type TopUpRow } from "./top-ups";

export function createBilling(deps: BillingDeps) {
  const pageTransactions = transactionPager(deps.db);
  const pageTopUps = topUpPagers(deps.db);
  deps.jobs.register<{ topUpId: string }>(TOP_UP_EXPIRE_JOB, (job) => expireTopUp(deps, job.payload.topUpId), {
    concurrency: 4,
    maxAttempts: 5,
    onDead: async (tx, job) => {
      const topUpId = (job.payload as { topUpId?: unknown } | undefined)?.topUpId;
      if (typeof topUpId === "string") await expiryDead(deps, tx, topUpId);
    },
  });
  return {
    bookEntry: (tx: Orm, entry: LedgerEntry) => bookEntry(deps, tx, entry),
    fulfil: (topUpId: string) => fulfil(deps, topUpId),
    /** VITRIN_TOP_UP_MAX, for the route's schema. */
    topUpMax: deps.config.topUpMax,
    balance: (accountId: string) => balance(deps, accountId),
    /** The amounts and currencies a top-up may use, and the credits each currency buys. */
    topUpOptions: () => topUpOptions(deps.config),
    transactions: (accountId: string, query: PageQuery) => listTransactions(pageTransactions, accountId, query),
    startTopUp: (accountId: string, input: TopUpRequest) => startTopUp(deps, accountId, input),
    getTopUp: (accountId: string, id: string) => getTopUp(deps, accountId, id),
    /** The account's top-ups, newest first, of one status when asked. */
    topUps: (accountId: string, query: TopUpListQuery) => listTopUps(pageTopUps, accountId, query),
    /** For the payer-facing pages, which know only the (unguessable) top-up id. */
    loadTopUp: (id: string) => loadTopUp(deps, deps.db.read, id),
    /** An operator's confirmation for the manual provider (admin API and CLI); exactly once. */
    completeManually: (id: string) => completeManually(deps, id),
    /** A verified provider notification: deduplicated by event id, then applied. */
    handleNotice: (notice: PaymentNotice) => handleNotice(deps, notice),
    /** The payer came back from the provider: ask it how the payment stands and book it if paid. */
    checkReturn: (id: string) => checkReturn(deps, id),
    /** Every account whose credits differ from the sum of its transactions (empty when the ledger is sound). */
    ledgerCheck: () => ledgerCheck(deps),
  };
}

export type Billing = ReturnType<typeof createBilling>;
