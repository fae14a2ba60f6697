// Accounts themselves: opening one (with its opening credits booked and a first token), reading, changing, and an
// operator's credit grant or correction.
import { desc, eq, or, sql, type SQLWrapper } from "drizzle-orm";
import { alertLowBalance, book, checkAmount, MAX_CREDIT_GRANT, transactionJson, type LedgerEntry } from "../billing";
import { createPager, type Db, type Page, type PageQuery } from "../db";
import { errors, newId } from "../kernel";
import { normalizeLanguage } from "./json";
import { issueToken } from "./tokens";
import type { AccountDeps, AccountPatch, AccountRow, NewAccount } from "./types";

const LANGUAGE_HINT = "must be a BCP 47 language code such as en, tr or pt-BR";

export async function createAccount(deps: AccountDeps, input: NewAccount) {
  const { db, clock } = deps;
  const { accounts } = db.schema;
  const language = normalizeLanguage(input.language ?? "en");
  if (!language) throw errors.invalidField("language", LANGUAGE_HINT);
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
    const token = await issueToken(deps, tx, id, "default", at);
    const [row] = await tx.select().from(accounts).where(eq(accounts.id, id));
    return { account: row, token };
  });
}

export async function getAccount(deps: AccountDeps, id: string): Promise<AccountRow | null> {
  const { accounts } = deps.db.schema;
  const [row] = await deps.db.read.select().from(accounts).where(eq(accounts.id, id)).limit(1);
  return row ?? null;
}

export async function listAccounts(deps: AccountDeps): Promise<AccountRow[]> {
  const { accounts } = deps.db.schema;
  return deps.db.read.select().from(accounts).orderBy(desc(accounts.createdAt), desc(accounts.id));
}

/** The operator's pages of accounts, newest first; `q` keeps those whose name or id holds it (any case). */
export function accountPager(db: Db) {
  const { accounts } = db.schema;
  const all = createPager<AccountRow>(db.read, accounts, [], "account");
  const needle = sql.placeholder("needle");
  // SQLite's lower() and LIKE fold ASCII only ("Şeker" would miss "şeker"), so there each letter becomes a GLOB class
  // of its cases; PostgreSQL's ILIKE folds by the database's locale.
  const holds = (col: SQLWrapper) => (db.dialect === "postgres" ? sql`${col} ilike ${needle} escape '\\'` : sql`${col} glob ${needle}`);
  const found = createPager<AccountRow>(db.read, accounts, [], "account", { filter: or(holds(accounts.name), holds(accounts.id)) });
  return (query: PageQuery & { q?: string }): Promise<Page<AccountRow>> => {
    const q = query.q?.trim();
    if (!q) return all([], query);
    const pattern = db.dialect === "postgres" ? `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : `*${[...q].map(globClass).join("")}*`;
    return found([], query, undefined, { needle: pattern });
  };
}

/** One character of a GLOB pattern matching it in any case (Turkish dotted and dotless i included), or literally. */
function globClass(c: string): string {
  const cases = new Set([c, c.toLowerCase(), c.toUpperCase(), c.toLocaleLowerCase("tr"), c.toLocaleUpperCase("tr")].filter((v) => [...v].length === 1));
  if (cases.size > 1) return `[${[...cases].join("")}]`;
  return "*?[".includes(c) ? `[${c}]` : c;
}

export async function updateAccount(deps: AccountDeps, id: string, patch: AccountPatch) {
  const { accounts } = deps.db.schema;
  const set: Partial<AccountRow> = { updatedAt: deps.clock.now() };
  if (patch.webhookUrl !== undefined) set.webhookUrl = patch.webhookUrl;
  if (patch.isPremium !== undefined) set.isPremium = patch.isPremium;
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.language !== undefined) {
    const language = normalizeLanguage(patch.language);
    if (!language) throw errors.invalidField("language", LANGUAGE_HINT);
    set.language = language;
  }
  const rows = await deps.db.tx((tx) => tx.update(accounts).set(set).where(eq(accounts.id, id)).returning());
  if (rows.length === 0) throw errors.notFound("account");
  return rows[0];
}

/** An operator's credit grant (positive) or correction (negative, never below zero). */
export async function grantCredits(deps: AccountDeps, accountId: string, amount: number, description?: string) {
  const { db } = deps;
  const { accounts } = db.schema;
  checkAmount("amount", amount, -MAX_CREDIT_GRANT, MAX_CREDIT_GRANT, "credits");
  if (amount === 0) throw errors.invalidField("amount", "must not be zero");
  const at = deps.clock.now();
  const { row } = await db.tx(async (tx) => {
    const [acct] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
    if (!acct) throw errors.notFound("account");
    const entry: LedgerEntry = {
      accountId,
      amount,
      type: amount > 0 ? "grant" : "adjustment",
      // Blank is no description: the ledger says what the row is rather than nothing.
      description: description?.trim() || (amount > 0 ? "Credits granted by an operator" : "Correction by an operator"),
      platform: "system",
      at,
    };
    try {
      const booked = await book(db.schema, tx, entry);
      // A correction can take the balance below the threshold as a video charge can.
      if (deps.lowBalance) await alertLowBalance(deps.lowBalance, tx, entry, booked);
      return booked;
    } catch (e) {
      if ((e as { status?: number }).status === 402) {
        throw errors.conflict("This correction would take the balance below zero.");
      }
      throw e;
    }
  });
  return transactionJson(row);
}
