// Accounts and their bearer tokens: tokens are random, shown once, kept only as a SHA-256 hash, and revocable.
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db";
import type { Clock } from "../kernel";
import type { accounts } from "../db/schema";
import { iso, newId } from "../kernel";
import { book, transactionJson } from "../billing";
import { checkAmount, MAX_CREDIT_GRANT } from "../billing/amounts";
import { errors } from "../kernel";

export type AccountRow = typeof accounts.$inferSelect;
export type Principal = { accountId: string; tokenId: string };

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

export function normalizeLanguage(raw: string): string | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(raw);
    return canonical ?? null;
  } catch {
    return null;
  }
}

export function accountJson(row: AccountRow) {
  return {
    id: row.id,
    object: "account",
    name: row.name,
    credits: row.credits,
    is_premium: row.isPremium,
    language: row.language,
    created_at: iso(row.createdAt),
  };
}

export type NewAccount = { name?: string; credits?: number; language?: string; isPremium?: boolean };

export function createAccounts(db: Db, clock: Clock) {
  const { accounts, tokens } = db.schema;
  async function issueToken(tx: Parameters<Parameters<Db["tx"]>[0]>[0], accountId: string, name: string, at: number) {
    const token = randomToken();
    const id = newId("tok");
    await tx.insert(tokens).values({
      id,
      accountId,
      hash: hashToken(token),
      hint: `${token.slice(0, 7)}…${token.slice(-4)}`,
      name,
      createdAt: at,
    });
    return { id, token };
  }

  // Every request authenticates, so this statement is prepared once.
  const tokenByHash = db.read
    .select({ tokenId: tokens.id, accountId: tokens.accountId, revokedAt: tokens.revokedAt })
    .from(tokens)
    .where(eq(tokens.hash, sql.placeholder("hash")))
    .limit(1)
    .prepare();

  return {
    async create(input: NewAccount) {
      const language = normalizeLanguage(input.language ?? "en");
      if (!language) throw errors.invalidField("language", "must be a BCP 47 language code such as en, tr or pt-BR");
      const credits = input.credits ?? 0;
      checkAmount("credits", credits, 0, MAX_CREDIT_GRANT, "credits");
      const at = clock.now();
      return db.tx(async (tx) => {
        const id = newId("acct");
        await tx.insert(accounts).values({
          id,
          name: input.name ?? "",
          language,
          isPremium: input.isPremium ?? false,
          credits: 0,
          createdAt: at,
          updatedAt: at,
        });
        // Opening credits go through the ledger like any other change, so credits = sum of transactions from day one.
        if (credits > 0) {
          await book(db.schema, tx, {
            accountId: id,
            amount: credits,
            type: "grant",
            description: "Opening credits",
            platform: "system",
            reference: `account:${id}:opening`,
            at,
          });
        }
        const token = await issueToken(tx, id, "default", at);
        const [row] = await tx.select().from(accounts).where(eq(accounts.id, id));
        return { account: row, token };
      });
    },

    async get(id: string): Promise<AccountRow | null> {
      const [row] = await db.read.select().from(accounts).where(eq(accounts.id, id)).limit(1);
      return row ?? null;
    },

    async list(): Promise<AccountRow[]> {
      return db.read.select().from(accounts).orderBy(desc(accounts.createdAt), desc(accounts.id));
    },

    async update(id: string, patch: { isPremium?: boolean; language?: string; name?: string; webhookUrl?: string | null }) {
      const set: Partial<AccountRow> = { updatedAt: clock.now() };
      if (patch.webhookUrl !== undefined) set.webhookUrl = patch.webhookUrl;
      if (patch.isPremium !== undefined) set.isPremium = patch.isPremium;
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.language !== undefined) {
        const language = normalizeLanguage(patch.language);
        if (!language) throw errors.invalidField("language", "must be a BCP 47 language code such as en, tr or pt-BR");
        set.language = language;
      }
      const rows = await db.tx((tx) => tx.update(accounts).set(set).where(eq(accounts.id, id)).returning());
      if (rows.length === 0) throw errors.notFound("account");
      return rows[0];
    },

    async createToken(accountId: string, name = "") {
      return db.tx(async (tx) => {
        const [acct] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
        if (!acct) throw errors.notFound("account");
        return issueToken(tx, accountId, name, clock.now());
      });
    },

    /** Revokes a token; false when no live token has that id. */
    async revokeToken(tokenId: string): Promise<boolean> {
      const rows = await db.tx((tx) =>
        tx
          .update(tokens)
          .set({ revokedAt: clock.now() })
          .where(and(eq(tokens.id, tokenId), isNull(tokens.revokedAt)))
          .returning({ id: tokens.id }),
      );
      return rows.length > 0;
    },

    async listTokens(accountId: string) {
      return db.read
        .select({ id: tokens.id, hint: tokens.hint, name: tokens.name, createdAt: tokens.createdAt, revokedAt: tokens.revokedAt })
        .from(tokens)
        .where(eq(tokens.accountId, accountId))
        .orderBy(desc(tokens.createdAt));
    },

    /** Resolves a presented bearer token to its account, or null when unknown or revoked. */
    async authenticate(token: string): Promise<Principal | null> {
      if (!token.startsWith("vt_") || token.length > 200) return null;
      // Keyed by the token itself so a cache hit skips hashing; the cache lives in this process's memory only.
      return db.cached(`token:${token}`, async () => {
        const [row] = await tokenByHash.execute({ hash: hashToken(token) });
        if (!row || row.revokedAt !== null) return null;
        return { accountId: row.accountId, tokenId: row.tokenId };
      });
    },

    /** An operator's credit grant (positive) or correction (negative, never below zero). */
    async grant(accountId: string, amount: number, description?: string) {
      checkAmount("amount", amount, -MAX_CREDIT_GRANT, MAX_CREDIT_GRANT, "credits");
      if (amount === 0) throw errors.invalidField("amount", "must not be zero");
      const at = clock.now();
      const { row } = await db.tx(async (tx) => {
        const [acct] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
        if (!acct) throw errors.notFound("account");
        try {
          return await book(db.schema, tx, {
            accountId,
            amount,
            type: amount > 0 ? "grant" : "adjustment",
            description: description ?? (amount > 0 ? "Credits granted by an operator" : "Correction by an operator"),
            platform: "system",
            at,
          });
        } catch (e) {
          if ((e as { status?: number }).status === 402) {
            throw errors.conflict("This correction would take the balance below zero.");
          }
          throw e;
        }
      });
      return transactionJson(row);
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
