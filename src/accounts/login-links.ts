// One-time login links: an operator hands an account holder a URL that signs the browser in once, within 15 minutes.
// Only the code's SHA-256 is stored, and using it is one conditional UPDATE, so two requests (or two instances on
// one PostgreSQL) racing with the same code cannot both win.
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { errors, iso, newId } from "../kernel";
import { isSecretShape, randomSecret } from "./sessions";
import { hashToken } from "./tokens";
import type { AccountDeps } from "./types";

export const LOGIN_LINK_TTL_MS = 15 * 60_000;

/** A new link's code (shown once, in the URL) and when it stops working; 404 for an unknown account. */
export async function createLoginLink(deps: AccountDeps, accountId: string): Promise<{ code: string; expiresAt: number }> {
  const { accounts, loginLinks } = deps.db.schema;
  const now = deps.clock.now();
  const code = randomSecret();
  const expiresAt = now + LOGIN_LINK_TTL_MS;
  await deps.db.tx(async (tx) => {
    const [acct] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
    if (!acct) throw errors.notFound("account");
    // Links past their time are no use to anyone: swept as new ones are made.
    await tx.delete(loginLinks).where(lt(loginLinks.expiresAt, now));
    await tx.insert(loginLinks).values({ id: newId("llk"), hash: hashToken(code), accountId, createdAt: now, expiresAt });
  });
  return { code, expiresAt };
}

/** Uses a link: its account and id, or null when the code is unknown, already used or expired. */
export async function consumeLoginLink(deps: AccountDeps, code: string): Promise<{ accountId: string; linkId: string } | null> {
  if (!isSecretShape(code)) return null;
  const { loginLinks } = deps.db.schema;
  const now = deps.clock.now();
  const rows = await deps.db.tx((tx) =>
    tx
      .update(loginLinks)
      .set({ usedAt: now })
      .where(and(eq(loginLinks.hash, hashToken(code)), isNull(loginLinks.usedAt), gt(loginLinks.expiresAt, now)))
      .returning({ accountId: loginLinks.accountId, linkId: loginLinks.id }),
  );
  return rows[0] ?? null;
}

/** A link as the API and the CLI show it: the URL that signs in (publicUrl + /studio/login/<code>) and its expiry. */
export function loginLinkJson(publicUrl: string, link: { code: string; expiresAt: number }) {
  return { object: "login_link" as const, url: `${publicUrl}/studio/login/${link.code}`, expires_at: iso(link.expiresAt)! };
}
