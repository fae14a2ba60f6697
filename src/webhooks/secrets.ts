// An account's webhook signing secrets: the current one (made on first use), rotation with an overlap during which the
// old secret still signs, and the set of secrets that sign a delivery at a given moment.
import { and, eq, isNull } from "drizzle-orm";
import { queryValues, type Db, type Orm } from "../db";
import { iso, newId, type Clock } from "../kernel";
import { newSecret } from "./sign";
import type { Keys } from "./types";

/** How long a rotated-out secret keeps signing beside its successor. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export type SecretDeps = { db: Db; clock: Clock };

// An account's secrets that have not expired at $2, newest first: [secret, expires_at].
const UNEXPIRED_SECRETS = `SELECT secret, expires_at FROM webhook_secrets
  WHERE account_id = $1 AND (expires_at IS NULL OR expires_at > $2) ORDER BY created_at DESC`;

/** The secret without an expiry (the one a rotation would retire), if the account has one. */
async function activeSecret(deps: SecretDeps, orm: Orm, accountId: string): Promise<string | null> {
  const { webhookSecrets } = deps.db.schema;
  const [row] = await orm
    .select({ secret: webhookSecrets.secret })
    .from(webhookSecrets)
    .where(and(eq(webhookSecrets.accountId, accountId), isNull(webhookSecrets.expiresAt)))
    .limit(1);
  return row?.secret ?? null;
}

async function insertSecret(deps: SecretDeps, tx: Orm, accountId: string, secret: string, now: number): Promise<void> {
  await tx.insert(deps.db.schema.webhookSecrets).values({ id: newId("file").replace("file_", "whs_"), accountId, secret, createdAt: now });
}

/** The account's current secret; an account without one gets one (once, however many ask at the same time). */
export async function currentSecret(deps: SecretDeps, accountId: string): Promise<string> {
  const now = deps.clock.now();
  const found = await activeSecret(deps, deps.db.read, accountId);
  if (found) return found;
  return deps.db.tx(async (tx) => {
    const again = await activeSecret(deps, tx, accountId);
    if (again) return again;
    const secret = newSecret();
    await insertSecret(deps, tx, accountId, secret, now);
    return secret;
  });
}

/** A new current secret; the old one keeps signing for ROTATION_OVERLAP_MS so receivers can switch without a gap. */
export async function rotateSecret(deps: SecretDeps, accountId: string): Promise<{ object: "webhook_secret"; secret: string; previous_expires_at: string }> {
  const { webhookSecrets } = deps.db.schema;
  await currentSecret(deps, accountId);
  const now = deps.clock.now();
  const secret = newSecret();
  await deps.db.tx(async (tx) => {
    await tx
      .update(webhookSecrets)
      .set({ expiresAt: now + ROTATION_OVERLAP_MS })
      .where(and(eq(webhookSecrets.accountId, accountId), isNull(webhookSecrets.expiresAt)));
    await insertSecret(deps, tx, accountId, secret, now);
  });
  return { object: "webhook_secret", secret, previous_expires_at: iso(now + ROTATION_OVERLAP_MS)! };
}

/** The account's secrets unexpired at `now`, newest first; a delivery job reads them with each page of messages. */
export async function unexpiredKeys(deps: SecretDeps, accountId: string, now: number): Promise<Keys> {
  const rows = await queryValues(deps.db.read, deps.db.dialect, UNEXPIRED_SECRETS, [accountId, now]);
  return rows.map((v) => ({ secret: v[0] as string, expiresAt: v[1] == null ? null : Number(v[1]) }));
}

/**
 * The secrets that sign a delivery at `now`, newest first; an account without one gets one. The expiry is checked
 * per delivery, so a rotated-out secret stops signing on time even in the middle of a page.
 */
export async function signingSecrets(deps: SecretDeps, accountId: string, keys: Keys, now: number): Promise<string[]> {
  const out: string[] = [];
  for (const k of keys) if (k.expiresAt === null || k.expiresAt > now) out.push(k.secret);
  if (out.length > 0) return out;
  const secret = await currentSecret(deps, accountId);
  keys.unshift({ secret, expiresAt: null });
  return [secret];
}
