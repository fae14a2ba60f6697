// The data layer's face: opens the database (a `postgres://` URL selects PostgreSQL, anything else SQLite), and names
// everything other folders use from src/db. Route and domain code only ever sees `Db`.
//
// Inside: types.ts (the contracts), sqlite.ts (reader and grouped writer: group-writer.ts, wal-sync.ts, read-cache.ts,
// sqlite-lock.ts), postgres.ts, schema.ts and schema-pg.ts (the tables), migrations.ts, dialect.ts (SQL that differs
// between the two), pagination.ts (cursor pages). Those files import one another and types.ts, never this face.
import * as schema from "./schema";
import { openPostgres } from "./postgres";
import { openSqliteDb } from "./sqlite";
import type { Db, OpenOptions } from "./types";
import { isPostgresUrl } from "./url";
import type { SetTimer } from "../kernel";

export type { SetTimer };
export { schema };
export type { Db, Dialect, OpenOptions, Orm, Schema, TxOptions } from "./types";
export { databaseFailure, isPostgresUrl, requireExistingDatabase, sqlitePathFromUrl } from "./url";
export { LAZY_FLUSH_MS, WalSync, type SyncFile } from "./wal-sync";
export { isSqliteBusy } from "./sqlite-lock";
export { pgClientOf, sqlState } from "./postgres";
export { compiledStatement, idList, queryValues, runRows, sqliteClientOf, type IdList, type RowsStatement } from "./dialect";
export { createPager, filteredPagers, parseLimit, type CreatedRange, type Page, type PageQuery } from "./pagination";
export { importedMigrationTags, importedPostgresMigrationTags, postgresMigrations, sqliteMigrations, type Migration } from "./migrations";

export function openDatabase(url: string, options: OpenOptions = {}): Db {
  if (isPostgresUrl(url)) return openPostgres(url, options.poolSize);
  return openSqliteDb(url, options);
}
