// What a backup archive holds and how its manifest.json is checked: names, sizes, checksums and the schema it needs.
import pkg from "../../package.json" with { type: "json" };
import { isSafeKey } from "../plugins";
import { sqliteMigrations } from "../db";
import { BackupError } from "./errors";

export const MANIFEST_NAME = "manifest.json";
export const DATABASE_NAME = "vitrin.db";
/** Stored files sit under this prefix, by their storage key (the local storage plugin's layout). */
export const FILES_PREFIX = "files/";
export const FORMAT = "vitrin-backup";
export const FORMAT_VERSION = 1;
/** A manifest lists one line per file; this bounds what restore reads into memory for it. */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

export type Entry = { path: string; size: number; sha256: string };
/** The latest migration applied to the archived database: its drizzle tag and journal time. */
export type SchemaVersion = { dialect: "sqlite"; migration: string; when: number };

export type Manifest = {
  format: typeof FORMAT;
  format_version: number;
  vitrin_version: string;
  schema: SchemaVersion;
  created_at: string;
  entries: Entry[];
};

export function buildManifest(schema: SchemaVersion, createdAt: Date, entries: Entry[]): Manifest {
  return { format: FORMAT, format_version: FORMAT_VERSION, vitrin_version: pkg.version, schema, created_at: createdAt.toISOString(), entries };
}

/** True for the names a backup may hold; anything else (absolute paths, `..`, links) is refused before extraction. */
export function isArchiveName(name: string): boolean {
  if (name === MANIFEST_NAME || name === DATABASE_NAME) return true;
  return name.startsWith(FILES_PREFIX) && isSafeKey(name.slice(FILES_PREFIX.length));
}

/** The schema version of a migration time, by this binary's own list; null when this binary does not know it. */
export function knownSchema(when: number): SchemaVersion | null {
  const m = sqliteMigrations().find((x) => x.when === when);
  return m ? { dialect: "sqlite", migration: m.tag, when: m.when } : null;
}

function damaged(why: string): BackupError {
  return new BackupError("Damaged archive", `the archive's manifest is not valid: ${why}`);
}

/** Parses and checks manifest.json's shape; throws BackupError("Damaged archive") naming the first problem. */
export function parseManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw damaged((e as Error).message);
  }
  const m = raw as Partial<Manifest> | null;
  if (!m || typeof m !== "object" || m.format !== FORMAT) throw damaged(`format is not "${FORMAT}"`);
  if (m.format_version !== FORMAT_VERSION) {
    throw new BackupError("Newer schema", `the archive has backup format ${m.format_version}; this vitrin reads format ${FORMAT_VERSION} (use vitrin ${m.vitrin_version ?? "that made it"})`);
  }
  const s = m.schema;
  if (!s || s.dialect !== "sqlite" || typeof s.migration !== "string" || !Number.isSafeInteger(s.when)) throw damaged("schema is missing or malformed");
  if (typeof m.created_at !== "string" || typeof m.vitrin_version !== "string") throw damaged("created_at or vitrin_version is missing");
  if (!Array.isArray(m.entries)) throw damaged("entries is not a list");
  const seen = new Set<string>();
  for (const e of m.entries) {
    if (!e || typeof e.path !== "string" || !isArchiveName(e.path) || e.path === MANIFEST_NAME) throw damaged(`entry ${JSON.stringify(e?.path)} is not a name a backup holds`);
    if (!Number.isSafeInteger(e.size) || e.size < 0 || typeof e.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(e.sha256)) throw damaged(`entry ${e.path} has no valid size and sha256`);
    if (seen.has(e.path)) throw damaged(`entry ${e.path} is listed twice`);
    seen.add(e.path);
  }
  if (!seen.has(DATABASE_NAME)) throw damaged(`${DATABASE_NAME} is not listed`);
  return m as Manifest;
}

/** Refuses an archive whose database is newer than the migrations this binary carries (it could not run on it). */
export function checkSchema(manifest: Manifest): void {
  const known = sqliteMigrations();
  const latest = known[known.length - 1];
  if (manifest.schema.when > latest.when || !knownSchema(manifest.schema.when)) {
    throw new BackupError(
      "Newer schema",
      `the backup's database is at migration ${manifest.schema.migration}, which this vitrin (${pkg.version}, latest migration ${latest.tag}) does not know; ` +
        `restore it with vitrin ${manifest.vitrin_version} or later`,
    );
  }
}
