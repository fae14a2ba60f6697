// Studio browser sessions: the cookie carries a random secret, the database only its SHA-256. A session ends when it is
// signed out, after 12 hours, after 2 idle hours, when the token that opened it is revoked, or (an operator's) when
// VITRIN_ADMIN_TOKEN changes.
import { eq, lt, or } from "drizzle-orm";
import { hashToken } from "./tokens";
import type { AccountDeps } from "./types";

export const SESSION_ABSOLUTE_MS = 12 * 3600_000;
export const SESSION_IDLE_MS = 2 * 3600_000;
/** last_seen_at is written at most this often: a write per request would cost more than the idle check is worth. */
const TOUCH_EVERY_MS = 5 * 60_000;

export type SessionKind = "account" | "admin";
export type StudioSession = { kind: SessionKind; accountId: string | null; openedWith: string; csrfToken: string; expiresAt: number };
export type SessionDeps = AccountDeps & { adminToken: string | null };

/** 32 random bytes as base64url (43 characters): the cookie secret, the CSRF token, a login link's code. */
export function randomSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

const SECRET = /^[A-Za-z0-9_-]{43}$/;
export function isSecretShape(value: string): boolean {
  return SECRET.test(value);
}

/** What an operator's session remembers of the admin token: enough to notice it changed, nothing to sign in with. */
export function adminFingerprint(adminToken: string): string {
  return hashToken(`vitrin-admin-session:${adminToken}`);
}

/** Opens a session; returns the cookie secret (shown to the browser only) and the session. */
export async function openSession(deps: SessionDeps, input: { kind: SessionKind; accountId: string | null; openedWith: string }) {
  const { studioSessions } = deps.db.schema;
  const now = deps.clock.now();
  const secret = randomSecret();
  const session: StudioSession = { ...input, csrfToken: randomSecret(), expiresAt: now + SESSION_ABSOLUTE_MS };
  await deps.db.tx(async (tx) => {
    // Ended sessions are swept as new ones open: no job needed, and the table stays as small as the live sessions.
    await tx.delete(studioSessions).where(or(lt(studioSessions.expiresAt, now), lt(studioSessions.lastSeenAt, now - SESSION_IDLE_MS)));
    await tx.insert(studioSessions).values({
      hash: hashToken(secret),
      kind: session.kind,
      accountId: session.accountId,
      openedWith: session.openedWith,
      csrfToken: session.csrfToken,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: session.expiresAt,
    });
  });
  return { secret, session };
}

type SessionRow = {
  hash: string;
  kind: string;
  accountId: string | null;
  openedWith: string;
  csrfToken: string;
  lastSeenAt: number;
  expiresAt: number;
  tokenRevokedAt: number | null;
};

async function sessionRow(deps: SessionDeps, secret: string): Promise<SessionRow | null> {
  const { studioSessions, tokens } = deps.db.schema;
  // Keyed by the secret so a hit skips hashing; any commit (a sign-out, a revoked token) clears the cache.
  return deps.db.cached(`studio-session:${secret}`, async () => {
    const [row] = await deps.db.read
      .select({
        hash: studioSessions.hash,
        kind: studioSessions.kind,
        accountId: studioSessions.accountId,
        openedWith: studioSessions.openedWith,
        csrfToken: studioSessions.csrfToken,
        lastSeenAt: studioSessions.lastSeenAt,
        expiresAt: studioSessions.expiresAt,
        tokenRevokedAt: tokens.revokedAt,
      })
      .from(studioSessions)
      .leftJoin(tokens, eq(tokens.id, studioSessions.openedWith))
      .where(eq(studioSessions.hash, hashToken(secret)))
      .limit(1);
    return row ?? null;
  });
}

/** The live session a cookie secret names, or null (unknown, expired, idle too long, its token revoked). */
export async function resolveSession(deps: SessionDeps, secret: string): Promise<StudioSession | null> {
  if (!isSecretShape(secret)) return null;
  const row = await sessionRow(deps, secret);
  if (!row) return null;
  const now = deps.clock.now();
  if (now >= row.expiresAt || now - row.lastSeenAt >= SESSION_IDLE_MS) return null;
  if (row.kind === "account") {
    if (row.accountId === null || row.tokenRevokedAt !== null) return null;
  } else if (row.kind === "admin") {
    if (!deps.adminToken || row.openedWith !== adminFingerprint(deps.adminToken)) return null;
  } else return null;
  if (now - row.lastSeenAt >= TOUCH_EVERY_MS) {
    const { studioSessions } = deps.db.schema;
    await deps.db.tx((tx) => tx.update(studioSessions).set({ lastSeenAt: now }).where(eq(studioSessions.hash, row.hash)));
  }
  return { kind: row.kind as SessionKind, accountId: row.accountId, openedWith: row.openedWith, csrfToken: row.csrfToken, expiresAt: row.expiresAt };
}

/** Ends a session on the server; false when the secret named none. */
export async function closeSession(deps: SessionDeps, secret: string): Promise<boolean> {
  if (!isSecretShape(secret)) return false;
  const { studioSessions } = deps.db.schema;
  const rows = await deps.db.tx((tx) =>
    tx.delete(studioSessions).where(eq(studioSessions.hash, hashToken(secret))).returning({ hash: studioSessions.hash }),
  );
  return rows.length > 0;
}

