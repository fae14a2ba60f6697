// A consistent copy of a live SQLite database by VACUUM INTO: it reads one snapshot (a WAL read transaction), so writers
// in the running service go on committing meanwhile and the copy holds none of their later or uncommitted work.
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { BackupError } from "./errors";
import { knownSchema, type SchemaVersion } from "./manifest";

/** Writes a snapshot of the database at `dbPath` to `outPath` (which must not exist) and checks the copy. */
export function snapshotDatabase(dbPath: string, outPath: string): SchemaVersion {
  if (!existsSync(dbPath)) throw new BackupError("Not found", `no database at ${dbPath}: is VITRIN_DATA_DIR (or --data-dir) the service's?`);
  const source = new Database(dbPath, { readwrite: true, create: false });
  try {
    // A reader waits only while another process recovers or checkpoints the WAL, which is brief.
    source.exec("PRAGMA busy_timeout = 5000");
    source.query("VACUUM INTO ?").run(outPath);
  } catch (e) {
    throw new BackupError("Database error", `could not copy ${dbPath}: ${(e as Error).message}`);
  } finally {
    source.close();
  }
  return checkCopy(outPath);
}

/** Runs SQLite's quick_check on a copy and reads its schema version; a copy that fails either is not a backup. */
function checkCopy(path: string): SchemaVersion {
  const copy = new Database(path, { readonly: true });
  try {
    const check = copy.query("PRAGMA quick_check").values().map((r) => String(r[0]));
    if (check.length !== 1 || check[0] !== "ok") throw new BackupError("Database error", `the database copy failed SQLite's check: ${check.slice(0, 3).join("; ")}`);
    return schemaOf(copy);
  } finally {
    copy.close();
  }
}

/** The latest migration applied to a database, which must be one this binary knows. */
export function schemaOf(db: Database): SchemaVersion {
  let row: { created_at: number } | null;
  try {
    row = db.query(`SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1`).get() as { created_at: number } | null;
  } catch {
    row = null;
  }
  if (!row) throw new BackupError("Database error", "the database has no migrations applied: run `vitrin migrate` (or start the service) first");
  const schema = knownSchema(Number(row.created_at));
  if (!schema) throw new BackupError("Newer schema", "the database was migrated by a newer vitrin than this one: back it up with that version");
  return schema;
}
