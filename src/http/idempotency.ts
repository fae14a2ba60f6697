// Idempotency-Key support for POST: the first response for a key is stored for 24 h and replayed for the same
// request; the same key with another request is a 409, as is a key whose first request is still running.
import { and, eq, lt } from "drizzle-orm";
import type { Db } from "../db";
import type { Clock } from "../db/clock";
import { errors } from "./errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyStart = { replay: false } | { replay: true; status: number; body: string };

export function requestHash(method: string, path: string, body: unknown): string {
  return new Bun.CryptoHasher("sha256").update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest("hex");
}

export function validKey(key: string): boolean {
  return key.length >= 1 && key.length <= 255 && /^[\x21-\x7e]+$/.test(key);
}

export function createIdempotency(db: Db, clock: Clock) {
  const { idempotencyKeys } = db.schema;
  const where = (accountId: string, key: string) => and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key));
  return {
    async start(accountId: string, key: string, hash: string): Promise<IdempotencyStart> {
      const now = clock.now();
      return db.tx(async (tx) => {
        const [existing] = await tx.select().from(idempotencyKeys).where(where(accountId, key)).limit(1);
        if (existing && existing.expiresAt > now) {
          if (existing.requestHash !== hash) {
            throw errors.conflict("This Idempotency-Key was already used with a different request.", { idempotency_key: key });
          }
          if (existing.state !== "done") {
            throw errors.conflict("A request with this Idempotency-Key is still being processed; retry shortly.", {
              idempotency_key: key,
            });
          }
          return { replay: true, status: existing.responseStatus ?? 200, body: existing.responseBody ?? "" };
        }
        if (existing) await tx.delete(idempotencyKeys).where(where(accountId, key));
        await tx.insert(idempotencyKeys).values({
          accountId,
          key,
          requestHash: hash,
          state: "processing",
          createdAt: now,
          expiresAt: now + IDEMPOTENCY_TTL_MS,
        });
        return { replay: false };
      });
    },

    async finish(accountId: string, key: string, status: number, body: string): Promise<void> {
      await db.tx((tx) =>
        tx
          .update(idempotencyKeys)
          .set({ state: "done", responseStatus: status, responseBody: body })
          .where(where(accountId, key)),
      );
    },

    /** Forgets a key whose request failed on our side, so the client may retry with it. */
    async abandon(accountId: string, key: string): Promise<void> {
      await db.tx((tx) => tx.delete(idempotencyKeys).where(where(accountId, key)));
    },

    async prune(): Promise<number> {
      const rows = await db.tx((tx) =>
        tx.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, clock.now())).returning({ key: idempotencyKeys.key }),
      );
      return rows.length;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
