// The words of the accounts folder: an account row, who a request is, and what its functions work with.
import type { LowBalanceAlert } from "../billing";
import type { Db, schema } from "../db";
import type { Clock } from "../kernel";

export type AccountRow = typeof schema.accounts.$inferSelect;
export type Principal = { accountId: string; tokenId: string };
export type NewAccount = { name?: string; credits?: number; language?: string; isPremium?: boolean };
export type AccountPatch = { isPremium?: boolean; language?: string; name?: string; webhookUrl?: string | null };

/** `lowBalance`: the service's low-balance signal for operators' corrections (absent: none is sent). */
export type AccountDeps = { db: Db; clock: Clock; lowBalance?: LowBalanceAlert };
