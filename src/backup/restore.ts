// `vitrin restore PATH --data-dir DIR`: the whole archive is checked (manifest, every checksum, schema) before anything
// is written; it is then unpacked into a fresh folder beside DIR, checked again, and renamed into place, so DIR is
// either untouched or completely restored.
import { Database } from "bun:sqlite";
import { createWriteStream } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, rename, rm, rmdir, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Config } from "../config";
import { localFilesDir } from "../plugins";
import { hashing, readArchive, syncPath, type ArchiveEntry } from "./archive";
import { BackupError } from "./errors";
import { checkSchema, DATABASE_NAME, FILES_PREFIX, isArchiveName, MANIFEST_NAME, MAX_MANIFEST_BYTES, parseManifest, type Entry, type Manifest } from "./manifest";
import { localSetup } from "./support";

/** Reads the whole archive and checks it against its manifest, writing nothing. */
export async function verifyBackup(path: string): Promise<Manifest> {
  const file = resolve(path);
  if (!(await stat(file).catch(() => null))?.isFile()) throw new BackupError("Not found", `no backup archive at ${file}`);
  const seen = new Map<string, Entry>();
  let manifestText: string | null = null;
  await readArchive(file, async (entry) => {
    checkEntry(entry, seen);
    if (entry.name === MANIFEST_NAME) {
      manifestText = await readSmall(entry);
      seen.set(MANIFEST_NAME, { path: MANIFEST_NAME, size: 0, sha256: "" });
      return;
    }
    const h = hashing();
    await pipeline(entry.stream, h.stream, async function (source: AsyncIterable<unknown>) {
      for await (const _ of source);
    });
    seen.set(entry.name, h.entry(entry.name));
  });
  if (manifestText === null) throw new BackupError("Damaged archive", `${file} has no ${MANIFEST_NAME}: it is not a complete vitrin backup`);
  const manifest = parseManifest(manifestText);
  for (const listed of manifest.entries) {
    const got = seen.get(listed.path);
    if (!got) throw new BackupError("Damaged archive", `${listed.path} is listed in the manifest but missing from the archive`);
    if (got.size !== listed.size || got.sha256 !== listed.sha256) throw mismatch(listed.path);
  }
  const listed = new Set(manifest.entries.map((e) => e.path));
  for (const name of seen.keys()) {
    if (name !== MANIFEST_NAME && !listed.has(name)) throw new BackupError("Damaged archive", `${name} is in the archive but not in its manifest`);
  }
  checkSchema(manifest);
  return manifest;
}

export type RestoreResult = { data_dir: string; manifest: Manifest; files: number; previous: string | null };

export async function restoreBackup(config: Config, path: string, options: { force?: boolean } = {}): Promise<RestoreResult> {
  const { databasePath, filesDir } = localSetup(config);
  const target = resolve(config.dataDir);
  if (databasePath !== join(target, DATABASE_NAME) || filesDir !== localFilesDir(target)) {
    throw new BackupError("Unsupported", `restore writes ${join(target, DATABASE_NAME)}, but VITRIN_DATABASE_URL names ${databasePath}: unset it, or point --data-dir at that database's folder`);
  }
  const existing = await stat(target).catch(() => null);
  if (existing && !existing.isDirectory()) throw new BackupError("Already exists", `${target} exists and is not a folder`);
  const occupied = existing ? (await readdir(target)).length > 0 : false;
  if (occupied && !options.force) {
    throw new BackupError("Not empty", `${target} is not empty; pass --force to restore over it (its contents are moved aside, not deleted)`);
  }
  if (occupied) assertNotInUse(join(target, DATABASE_NAME));
  const manifest = await verifyBackup(path);

  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const staging = await mkdtemp(join(parent, `.${basename(target)}.restore-`));
  try {
    await unpack(resolve(path), staging, manifest);
    // Keep the folder's own permissions; a new one stays owner-only (mkdtemp's 0700): it holds secrets.
    if (existing) await chmod(staging, existing.mode & 0o7777);
  } catch (e) {
    await rm(staging, { recursive: true, force: true });
    throw e;
  }
  let previous: string | null = null;
  if (occupied) {
    previous = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    await rename(target, previous);
  } else if (existing) {
    await rmdir(target);
  }
  await rename(staging, target);
  await syncPath(parent);
  return { data_dir: target, manifest, files: manifest.entries.filter((e) => e.path.startsWith(FILES_PREFIX)).length, previous };
}

/** Second pass: writes every entry under `dir`, hashing again (the file could have changed since it was verified). */
async function unpack(archive: string, dir: string, manifest: Manifest): Promise<void> {
  const listed = new Map(manifest.entries.map((e) => [e.path, e]));
  const written: string[] = [];
  await mkdir(localFilesDir(dir));
  await readArchive(archive, async (entry) => {
    if (entry.name === MANIFEST_NAME) return;
    const want = listed.get(entry.name);
    if (!want || entry.type !== "file") throw new BackupError("Damaged archive", `${entry.name} changed since the archive was verified`);
    const to = join(dir, entry.name);
    await mkdir(dirname(to), { recursive: true });
    const h = hashing();
    await pipeline(entry.stream, h.stream, createWriteStream(to, { flags: "wx", mode: 0o600 }));
    await syncPath(to);
    const got = h.entry(entry.name);
    if (got.size !== want.size || got.sha256 !== want.sha256) throw mismatch(entry.name);
    written.push(to);
  });
  if (written.length !== listed.size) throw new BackupError("Damaged archive", "the archive changed since it was verified");
  for (const folder of new Set(written.map((f) => dirname(f)))) await syncPath(folder);
}

function checkEntry(entry: ArchiveEntry, seen: Map<string, Entry>): void {
  if (entry.type !== "file" || !isArchiveName(entry.name)) {
    throw new BackupError("Damaged archive", `the archive holds ${entry.type} ${JSON.stringify(entry.name)}, which no vitrin backup holds`);
  }
  if (seen.has(entry.name)) throw new BackupError("Damaged archive", `the archive holds ${entry.name} twice`);
}

async function readSmall(entry: ArchiveEntry): Promise<string> {
  if (entry.size > MAX_MANIFEST_BYTES) throw new BackupError("Damaged archive", `${entry.name} is larger than ${MAX_MANIFEST_BYTES} bytes`);
  const chunks: Buffer[] = [];
  for await (const chunk of entry.stream as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function mismatch(name: string): BackupError {
  return new BackupError("Damaged archive", `${name} does not match its checksum in the manifest: the archive is corrupted`);
}

/**
 * Refuses to move a database that a running vitrin still has open: leaving WAL mode needs every other connection
 * closed, so SQLite answers busy while one is (and it is put back at once when none is).
 */
function assertNotInUse(dbPath: string): void {
  let db: Database;
  try {
    db = new Database(dbPath, { readwrite: true, create: false });
  } catch {
    return; // no database there
  }
  try {
    db.exec("PRAGMA busy_timeout = 0");
    const mode = (db.query("PRAGMA journal_mode = DELETE").get() as { journal_mode: string }).journal_mode;
    if (mode !== "delete") throw new Error("busy");
    db.exec("PRAGMA journal_mode = WAL");
  } catch {
    throw new BackupError("In use", `a running vitrin still has ${dbPath} open: stop it (and its workers) before restoring over its data dir`);
  } finally {
    db.close();
  }
}
