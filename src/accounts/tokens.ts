// Bearer tokens: random, shown once, kept only as a SHA-256 hash, revocable, and looked up on every request.
import { and, count, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db, Orm } from "../db";
import { errors, newId } from "../kernel";
import type { TokenUse } from "./token-use";
import type { AccountDeps, Principal } from "./types";

const tokenAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** 40 base62 characters ≈ 238 bits: too many to guess, so a fast hash is enough to store them. */
function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(40));
  let out = "vt_";
  for (const b of bytes) out += tokenAlphabet[b % 62];
  return out;
}

export function hashToken(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}

export async function issueToken(deps: AccountDeps, tx: Orm, accountId: string, name: string, at: number) {
  const token = randomToken();
  const id = newId("tok");
  await tx.insert(deps.db.schema.tokens).values({
    id,
    accountId,
    hash: hashToken(token),
    hint: `${token.slice(0, 7)}…${token.slice(-4)}`,
    name,
    createdAt: at,
  });
  return { id, token };
}

/** Live tokens an account may hold at once: enough for every app and teammate, and the token list stays one short page. */
export const MAX_LIVE_TOKENS = 50;

export async function createToken(deps: AccountDeps, accountId: string, name = "") {
  const { accounts, tokens } = deps.db.schema;
  return deps.db.tx(async (tx) => {
    const [acct] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
    if (!acct) throw errors.notFound("account");
    const [{ n }] = await tx.select({ n: count() }).from(tokens).where(and(eq(tokens.accountId, accountId), isNull(tokens.revokedAt)));
    if (Number(n) >= MAX_LIVE_TOKENS) throw errors.forbidden(`An account has at most ${MAX_LIVE_TOKENS} live tokens; revoke one first.`);
    return issueToken(deps, tx, accountId, name, deps.clock.now());
  });
}

/** Revokes a token (only the account's own, when `accountId` is given); false when no such live token exists. */
export async function revokeToken(deps: AccountDeps, tokenId: string, accountId?: string): Promise<boolean> {
  const { tokens } = deps.db.schema;
  const own = accountId === undefined ? undefined : eq(tokens.accountId, accountId);
  const rows = await deps.db.tx((tx) =>
    tx
      .update(tokens)
      .set({ revokedAt: deps.clock.now() })
      .where(and(eq(tokens.id, tokenId), isNull(tokens.revokedAt), own))
      .returning({ id: tokens.id }),
  );
  return rows.length > 0;
}

export async function listTokens(deps: AccountDeps, accountId: string) {
  const { tokens } = deps.db.schema;
  return deps.db.read
    .select({ id: tokens.id, hint: tokens.hint, name: tokens.name, createdAt: tokens.createdAt, lastUsedAt: tokens.lastUsedAt, revokedAt: tokens.revokedAt })
    .from(tokens)
    .where(eq(tokens.accountId, accountId))
    .orderBy(desc(tokens.createdAt));
}

/** The lookup of a token by its hash; every request authenticates, so it is prepared once per instance. */
export function tokenLookup(db: Db) {
  const { tokens } = db.schema;
  return db.read
    .select({ tokenId: tokens.id, accountId: tokens.accountId, lastUsedAt: tokens.lastUsedAt, revokedAt: tokens.revokedAt })
    .from(tokens)
    .where(eq(tokens.hash, sql.placeholder("hash")))
    .limit(1)
    .prepare();
}

/** Resolves a presented bearer token to its account, or null when unknown or revoked; notes the token's use. */
export async function authenticate(db: Db, lookup: ReturnType<typeof tokenLookup>, use: TokenUse, token: string): Promise<Principal | null> {
  if (!token.startsWith("vt_") || token.length > 200) return null;
  // Keyed by the token itself so a cache hit skips hashing; the cache lives in this process's memory only.
  const principal: Principal | null = await db.cached(`token:${token}`, async () => {
    const [row] = await lookup.execute({ hash: hashToken(token) });
    if (!row || row.revokedAt !== null) return null;
    use.seed(row.tokenId, row.lastUsedAt);
    return { accountId: row.accountId, tokenId: row.tokenId };
  });
  if (principal) use.note(principal.tokenId);
  return principal;
}
