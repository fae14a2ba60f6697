// Which setups a vitrin backup covers (SQLite and local storage), and what to use instead for the others.
import { resolve } from "node:path";
import type { Config } from "../config";
import { isPostgresUrl, sqlitePathFromUrl } from "../db";
import { localFilesDir } from "../plugins";
import { BackupError } from "./errors";

export const POSTGRES_ADVICE =
  "this service's database is PostgreSQL (VITRIN_DATABASE_URL), which vitrin backup does not copy: back it up with " +
  "`pg_dump --format=custom` and restore it with `pg_restore` (or use the server's continuous archiving); see docs/operations.md";

export const S3_ADVICE =
  "this service stores its files in S3 (VITRIN_STORAGE=s3), which vitrin backup does not copy: protect the bucket with " +
  "versioning and replication to a second bucket or region, and back the database up on its own; see docs/operations.md";

/** The SQLite file and the local files folder of a configuration, or a BackupError saying what to use instead. */
export function localSetup(config: Config): { databasePath: string; filesDir: string } {
  if (isPostgresUrl(config.databaseUrl)) throw new BackupError("Unsupported", POSTGRES_ADVICE);
  if (config.storage === "s3") throw new BackupError("Unsupported", S3_ADVICE);
  if (config.storage !== "local") {
    throw new BackupError("Unsupported", `vitrin backup copies files of the local storage only; back up the storage of plugin "${config.storage}" with its own tools`);
  }
  const databasePath = sqlitePathFromUrl(config.databaseUrl);
  if (databasePath === ":memory:") throw new BackupError("Unsupported", "an in-memory database (sqlite::memory:) has nothing on disk to back up");
  return { databasePath: resolve(databasePath), filesDir: localFilesDir(config.dataDir) };
}
