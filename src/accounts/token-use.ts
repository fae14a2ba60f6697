// A token's last use (`last_used_at`), recorded as requests authenticate: at most one write a minute per token, decided
// in memory, never awaited by the request and never failing it.
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../db";
import type { Clock, Logger } from "../kernel";

/** How stale a stored last use may get: a minute is precise enough to tell a live token from a forgotten one. */
export const TOKEN_USE_RESOLUTION_MS = 60_000;

/** Tokens remembered at once; past this the memory starts again (a few extra writes, never a wrong answer). */
const MAX_REMEMBERED = 10_000;

export type TokenUse = {
  /** What the database held when the token was looked up, so a restart does not write again within the minute. */
  seed(tokenId: string, lastUsedAt: number | null): void;
  /** Notes one authenticated use; writes (in the background) only when the remembered value is a minute old. */
  note(tokenId: string): void;
  /** Resolves once the writes started so far have ended (tests, shutdown). */
  settled(): Promise<void>;
};

export function createTokenUse(db: Db, clock: Clock, logger?: Logger): TokenUse {
  const { tokens } = db.schema;
  const remembered = new Map<string, number>();
  const pending = new Set<Promise<unknown>>();

  function remember(tokenId: string, at: number) {
    if (remembered.size >= MAX_REMEMBERED && !remembered.has(tokenId)) remembered.clear();
    remembered.set(tokenId, at);
  }

  function write(tokenId: string, at: number) {
    // The condition keeps another instance's fresher write, and skips the write when one landed within the minute.
    const fresh = or(isNull(tokens.lastUsedAt), lt(tokens.lastUsedAt, at - TOKEN_USE_RESOLUTION_MS + 1));
    // Not durable: losing a last-use time in a power cut costs nothing, and the writer need not wait for the disk. One
    // conditional UPDATE needs no serializable snapshot on PostgreSQL, so two instances' writes never retry each other.
    const options = { durable: false, isolation: "read committed" } as const;
    const done = db
      .tx((tx) => tx.update(tokens).set({ lastUsedAt: at }).where(and(eq(tokens.id, tokenId), fresh)), options)
      .then(
        () => undefined,
        (e: unknown) => logger?.warn("token last use not recorded", { token_id: tokenId, error: String(e) }),
      )
      .finally(() => pending.delete(done));
    pending.add(done);
  }

  return {
    seed(tokenId, lastUsedAt) {
      if (lastUsedAt !== null && !remembered.has(tokenId)) remember(tokenId, lastUsedAt);
    },
    note(tokenId) {
      const at = clock.now();
      const last = remembered.get(tokenId);
      if (last !== undefined && at - last < TOKEN_USE_RESOLUTION_MS) return;
      remember(tokenId, at);
      try {
        write(tokenId, at);
      } catch (e) {
        // A synchronous throw (a closed database) must not reach the request either.
        logger?.warn("token last use not recorded", { token_id: tokenId, error: String(e) });
      }
    },
    async settled() {
      await Promise.all([...pending]);
    },
  };
}
