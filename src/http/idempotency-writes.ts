// Makes an Idempotency-Key's outcome part of the request's own commits: every write transaction a POST holding a key
// runs also marks the key "carried out", so a crash between that commit and storing the answer cannot make a retry
// do the work a second time (a second grant, a second charge); see Idempotency.start.
import type { Db, Orm } from "../db";
import { currentScope, type HeldKey } from "./request-scope";

/** `db` whose transactions, when run for a POST holding a key, also mark that key with `mark` (same transaction). */
export function idempotentWrites(db: Db, mark: (tx: Orm, held: HeldKey) => Promise<void>): Db {
  const marked: Db = Object.create(db);
  marked.tx = (fn, options) => {
    // Read when the transaction is asked for: a group commit may run its body from another request's turn.
    const held = currentScope()?.idempotency;
    if (!held || options?.carriesOut === false) return db.tx(fn, options);
    return db.tx(async (tx) => {
      await mark(tx, held);
      return fn(tx);
    }, options);
  };
  return marked;
}
