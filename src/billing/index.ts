// Billing's face: the credit ledger, the one rule for amounts, and the billing service (balance, top-ups, payments).
export { book, transactionJson, type LedgerEntry, type TransactionRow, type TransactionType } from "./ledger";
export { checkAmount, MAX_CREDIT_GRANT } from "./amounts";
export { alertLowBalance, type LowBalanceAlert } from "./balance";
export { createBilling, type Billing, type BillingDeps } from "./service";
export { creditsFor, MIN_TOP_UP, TOP_UP_EXPIRE_JOB, topUpJson, type TopUpRow } from "./top-ups";
export { TOP_UP_STATUSES } from "./top-up-list";
