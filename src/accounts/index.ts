// Accounts and their bearer tokens: tokens are random, shown once, kept only as a SHA-256 hash, and revocable.
// This face assembles the named functions of records.ts and tokens.ts over one dependencies object.
import type { LowBalanceAlert } from "../billing";
import type { Db } from "../db";
import type { Clock, Logger } from "../kernel";
import { accountPager, createAccount, getAccount, grantCredits, listAccounts, updateAccount } from "./records";
import { authenticate, createToken, listTokens, revokeToken, tokenLookup } from "./tokens";
import { createTokenUse } from "./token-use";
import type { AccountPatch, NewAccount } from "./types";
import { consumeLoginLink, createLoginLink } from "./login-links";
import { adminFingerprint, closeSession, openSession, resolveSession, type SessionKind } from "./sessions";

export type { AccountPatch, AccountRow, NewAccount, Principal } from "./types";
export { accountJson, normalizeLanguage, tokenJson } from "./json";
export { hashToken } from "./tokens";
export { TOKEN_USE_RESOLUTION_MS } from "./token-use";
export { LOGIN_LINK_TTL_MS, loginLinkJson } from "./login-links";
export { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, type SessionKind, type StudioSession } from "./sessions";

/**
 * `logger` hears of a token's last use that could not be recorded (the request goes on regardless); `lowBalance` is
 * the service's low-balance signal, sent when an operator's correction crosses the threshold.
 */
export function createAccounts(db: Db, clock: Clock, logger?: Logger, lowBalance?: LowBalanceAlert) {
  const deps = { db, clock, lowBalance };
  const lookup = tokenLookup(db);
  const use = createTokenUse(db, clock, logger);
  const page = accountPager(db);
  return {
    create: (input: NewAccount) => createAccount(deps, input),
    get: (id: string) => getAccount(deps, id),
    list: () => listAccounts(deps),
    page,
    update: (id: string, patch: AccountPatch) => updateAccount(deps, id, patch),
    createToken: (accountId: string, name?: string) => createToken(deps, accountId, name),
    /** Revokes a token (only the account's own when `accountId` is given); false when no such live token exists. */
    revokeToken: (tokenId: string, accountId?: string) => revokeToken(deps, tokenId, accountId),
    listTokens: (accountId: string) => listTokens(deps, accountId),
    /** Resolves a presented bearer token to its account, or null when unknown or revoked; notes its last use. */
    authenticate: (token: string) => authenticate(db, lookup, use, token),
    /** Resolves once the last-use writes started so far have ended (shutdown waits for them before closing the database). */
    tokenUseSettled: () => use.settled(),
    /** An operator's credit grant (positive) or correction (negative, never below zero). */
    grant: (accountId: string, amount: number, description?: string) => grantCredits(deps, accountId, amount, description),
  };
}

export type Accounts = ReturnType<typeof createAccounts>;

/**
 * The Studio's sign-ins: browser sessions (opened with a token, the admin token or a login link) and one-time login
 * links. The admin token is needed to tell whether an operator's session still matches the configured one.
 */
export function createStudioSessions(db: Db, clock: Clock, adminToken: string | null) {
  const deps = { db, clock, adminToken };
  return {
    open: (input: { kind: SessionKind; accountId: string | null; openedWith: string }) => openSession(deps, input),
    /** The live session a cookie secret names, or null. */
    resolve: (secret: string) => resolveSession(deps, secret),
    /** Ends a session; false when the secret named none. */
    close: (secret: string) => closeSession(deps, secret),
    /** What an operator's session stores instead of the admin token. */
    adminFingerprint: () => (adminToken ? adminFingerprint(adminToken) : null),
    createLoginLink: (accountId: string) => createLoginLink(deps, accountId),
    /** Uses a login link once: its account and id, or null (unknown, used, expired). */
    consumeLoginLink: (code: string) => consumeLoginLink(deps, code),
  };
}

export type StudioSessions = ReturnType<typeof createStudioSessions>;
