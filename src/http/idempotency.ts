// Idempotency-Key support for POST: the first response for a key is stored for 24 h and replayed for the same
// request; the same key with another request is a 409, as is a key whose first request is still running. A request
// holds its key on a short lease, so a holder that died (crash, SIGKILL) frees the key within seconds, not a day.
import { and, eq, lt, sql } from "drizzle-orm";
import { configure } from "safe-stable-stringify";
import type { Db, Orm } from "../db";
import type { Clock } from "../kernel";
import { errors } from "../kernel";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a running request holds its key unless told otherwise (VITRIN_IDEMPOTENCY_LEASE_MS). */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 30_000;
/** Rows deleted per purge transaction, so a large backlog never holds the write lock for long. */
const PURGE_CHUNK = 1000;

export type IdempotencyStart = { replay: false; createdAt: number } | { replay: true; status: number; body: string };

/**
 * A key's states: "processing" while its first request runs (on a lease), "committed" once that request's work has
 * committed (marked in the same transaction, idempotency-writes.ts) but before its answer is stored, "done" with the
 * answer. A "committed" key whose holder died has no answer to replay, and its work must not run again.
 */
const CARRIED_OUT = "committed";

// Objects with their keys sorted: the same fields in another order are the same request.
const stableJson = configure({ deterministic: true });

/** The body as plain data to hash: an uploaded file (multipart) by its bytes' digest, its type and size. */
async function hashable(value: unknown): Promise<unknown> {
  if (value instanceof Blob) {
    return { file_sha256: new Bun.CryptoHasher("sha256").update(await value.bytes()).digest("hex"), type: value.type, size: value.size };
  }
  if (Array.isArray(value)) return Promise.all(value.map(hashable));
  if (value && typeof value === "object") {
    const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await hashable(v)] as const));
    return Object.fromEntries(entries);
  }
  return value;
}

/** What tells one request from another for a key: method, path and body, whatever the order of the body's fields. */
export async function requestHash(method: string, path: string, body: unknown): Promise<string> {
  const text = stableJson(await hashable(body ?? null));
  return new Bun.CryptoHasher("sha256").update(`${method} ${path}\n${text}`).digest("hex");
}

export function validKey(key: string): boolean {
  return key.length >= 1 && key.length <= 255 && /^[\x21-\x7e]+$/.test(key);
}

type KeyTable = Db["schema"]["idempotencyKeys"];
type Claim = { accountId: string; key: string; hash: string; now: number; leaseMs: number };

/** Inside start's transaction: replays a stored answer, refuses a key in use or carried out, or takes the key. */
async function claimKey(tx: Orm, idempotencyKeys: KeyTable, c: Claim): Promise<{ replay: false } | { replay: true; status: number; body: string }> {
  const { accountId, key, hash, now, leaseMs } = c;
  const where = (a: string, k: string) => and(eq(idempotencyKeys.accountId, a), eq(idempotencyKeys.key, k));
  const [existing] = await tx.select().from(idempotencyKeys).where(where(accountId, key)).limit(1);
  // A request still "processing" past its lease died before it could answer: its key is free again. Measured
  // from created_at, so keys left by versions that held them for 24 h are freed too.
  const held = existing && existing.createdAt + leaseMs > now;
  const live = existing && (existing.state === "processing" ? held : existing.expiresAt > now);
  if (existing && live) {
    if (existing.requestHash !== hash) {
      throw errors.conflict("This Idempotency-Key was already used with a different request.", { idempotency_key: key });
    }
    if (existing.state !== "done" && held) {
      throw errors.conflict("A request with this Idempotency-Key is still being processed; retry shortly.", {
        idempotency_key: key,
      });
    }
    if (existing.state === CARRIED_OUT) {
      throw errors.conflict(
        "The request with this Idempotency-Key was carried out, but the server stopped before its answer was kept; look the result up (GET the object or its list) instead of sending it again.",
        { idempotency_key: key },
      );
    }
    return { replay: true as const, status: existing.responseStatus ?? 200, body: existing.responseBody ?? "" };
  }
  if (existing) await tx.delete(idempotencyKeys).where(where(accountId, key));
  await tx.insert(idempotencyKeys).values({
    accountId,
    key,
    requestHash: hash,
    state: "processing",
    createdAt: now,
    // Until the answer is stored this is the lease's end, so the purge also clears keys whose holder died.
    expiresAt: now + leaseMs,
  });
  return { replay: false as const };
}

export function createIdempotency(db: Db, clock: Clock, opts: { leaseMs?: number } = {}) {
  const { idempotencyKeys } = db.schema;
  const leaseMs = opts.leaseMs ?? DEFAULT_IDEMPOTENCY_LEASE_MS;
  const where = (accountId: string, key: string) => and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key));
  // The created_at of each key this process holds: finishing or freeing a key is fenced on it, so a holder that
  // outlived its lease cannot overwrite or delete the row of the request that took the key over.
  const held = new Map<string, number>();
  const heldBy = (accountId: string, key: string) => `${accountId}\u0000${key}`;
  const fenced = (accountId: string, key: string) => {
    const since = held.get(heldBy(accountId, key));
    held.delete(heldBy(accountId, key));
    return since === undefined ? where(accountId, key) : and(where(accountId, key), eq(idempotencyKeys.createdAt, since));
  };

  return {
    leaseMs,

    async start(accountId: string, key: string, hash: string): Promise<IdempotencyStart> {
      const now = clock.now();
      const outcome = await db.tx((tx) => claimKey(tx, idempotencyKeys, { accountId, key, hash, now, leaseMs }));
      if (!outcome.replay) held.set(heldBy(accountId, key), now);
      return outcome.replay ? outcome : { replay: false, createdAt: now };
    },

    /**
     * Inside a transaction of the request holding the key: the work is carried out once this commits. Kept a day, as
     * an answer would be, so a retry after a crash is told so rather than doing the work again.
     */
    async markCarriedOut(tx: Orm, held: { accountId: string; key: string; createdAt: number }): Promise<void> {
      const ours = and(where(held.accountId, held.key), eq(idempotencyKeys.createdAt, held.createdAt));
      const marked = await tx
        .update(idempotencyKeys)
        .set({ state: CARRIED_OUT, expiresAt: held.createdAt + IDEMPOTENCY_TTL_MS })
        .where(and(ours, eq(idempotencyKeys.state, "processing")))
        .returning({ key: idempotencyKeys.key });
      if (marked.length > 0) return;
      // Marked by an earlier transaction of this request already; otherwise this request outlived its lease and a
      // retry (or the purge) has taken the key: its work must not commit beside the retry's, so this one rolls back.
      const [still] = await tx.select({ key: idempotencyKeys.key }).from(idempotencyKeys).where(and(ours, eq(idempotencyKeys.state, CARRIED_OUT))).limit(1);
      if (!still) {
        throw errors.conflict("This request ran past its Idempotency-Key's lease and the key was taken over; nothing was done. Look the result up before sending it again.", {
          idempotency_key: held.key,
        });
      }
    },

    async finish(accountId: string, key: string, status: number, body: string): Promise<void> {
      const match = fenced(accountId, key);
      await db.tx((tx) =>
        tx
          .update(idempotencyKeys)
          .set({
            state: "done",
            responseStatus: status,
            responseBody: body,
            expiresAt: sql`${idempotencyKeys.createdAt} + ${IDEMPOTENCY_TTL_MS}`,
          })
          .where(match),
      );
    },

    /**
     * Forgets a key whose request failed on our side (a 5xx), so the client may retry with it, even when some of its
     * work had committed: the request answered, and its own code undid or settled that work (a top-up whose provider
     * failed is marked failed). Only a request that never answered leaves a "carried out" key behind.
     */
    async abandon(accountId: string, key: string): Promise<void> {
      const match = fenced(accountId, key);
      await db.tx((tx) => tx.delete(idempotencyKeys).where(match));
    },

    /** Deletes keys past their 24 h (and keys whose holder died), in small transactions; returns how many. */
    async prune(): Promise<number> {
      const now = clock.now();
      const k = idempotencyKeys;
      let total = 0;
      for (;;) {
        const rows = await db.tx((tx) =>
          tx
            .delete(k)
            .where(
              and(
                lt(k.expiresAt, now),
                sql`(${k.accountId}, ${k.key}) IN (SELECT account_id, key FROM idempotency_keys WHERE expires_at < ${now} LIMIT ${PURGE_CHUNK})`,
              ),
            )
            .returning({ key: k.key }),
        );
        total += rows.length;
        if (rows.length < PURGE_CHUNK) return total;
      }
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
