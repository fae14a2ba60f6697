// The job store's face: the storage contract the engine writes through, its SQLite and PostgreSQL implementations, and
// the one place that picks between them by the database's dialect.
import type { Db } from "../../db";
import type { JobStore } from "./contract";
import { PostgresJobStore } from "./postgres";
import { SqliteJobStore } from "./sqlite";

export * from "./contract";
export { SqliteJobStore, PostgresJobStore };

/** The store for `db`'s dialect, when the engine is given none. */
export function jobStoreFor(db: Db): JobStore {
  if (db.dialect === "sqlite") return new SqliteJobStore();
  if (db.dialect === "postgres") return new PostgresJobStore();
  throw new Error(`no job store for database dialect ${String(db.dialect)}`);
}
