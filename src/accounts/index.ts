// Accounts and their bearer tokens: tokens are random, shown once, kept only as a SHA-256 hash, and revocable.
// This face assembles the named functions of records.ts and tokens.ts over one dependencies object.
import type { Db } from "../db";
import type { Clock } from "../kernel";
import { createAccount, getAccount, grantCredits, listAccounts, updateAccount } from "./records";
import { authenticate, createToken, listTokens, revokeToken, tokenLookup } from "./tokens";
import type { AccountPatch, NewAccount } from "./types";

export type { AccountPatch, AccountRow, NewAccount, Principal } from "./types";
export { accountJson, normalizeLanguage } from "./json";
export { hashToken } from "./tokens";

export function createAccounts(db: Db, clock: Clock) {
  const deps = { db, clock };
  const lookup = tokenLookup(db);
  return {
    create: (input: NewAccount) => createAccount(deps, input),
    get: (id: string) => getAccount(deps, id),
    list: () => listAccounts(deps),
    update: (id: string, patch: AccountPatch) => updateAccount(deps, id, patch),
    createToken: (accountId: string, name?: string) => createToken(deps, accountId, name),
    /** Revokes a token; false when no live token has that id. */
    revokeToken: (tokenId: string) => revokeToken(deps, tokenId),
    listTokens: (accountId: string) => listTokens(deps, accountId),
    /** Resolves a presented bearer token to its account, or null when unknown or revoked. */
    authenticate: (token: string) => authenticate(db, lookup, token),
    /** An operator's credit grant (positive) or correction (negative, never below zero). */
    grant: (accountId: string, amount: number, description?: string) => grantCredits(deps, accountId, amount, description),
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
