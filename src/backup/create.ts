// `vitrin backup PATH`: the database snapshot, then every stored file, then the manifest, into one .tar.gz written
// beside PATH and renamed into place once complete and on disk.
import { mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { Config } from "../config";
import { isPartialFile, isSafeKey } from "../plugins";
import { ArchiveWriter, syncPath } from "./archive";
import { BackupError } from "./errors";
import { buildManifest, DATABASE_NAME, FILES_PREFIX, MANIFEST_NAME, type Entry, type Manifest, type SchemaVersion } from "./manifest";
import { snapshotDatabase } from "./snapshot";
import { localSetup } from "./support";

export type BackupResult = {
  path: string;
  bytes: number;
  schema: SchemaVersion;
  files: number;
  file_bytes: number;
  database_bytes: number;
  /** Paths under the files folder left out: half-written uploads and names the storage could never have made. */
  skipped: string[];
};

export async function createBackup(config: Config, path: string, options: { force?: boolean; now?: () => Date } = {}): Promise<BackupResult> {
  const { databasePath, filesDir } = localSetup(config);
  const out = resolve(path);
  if (out === filesDir || out.startsWith(filesDir + sep)) throw new BackupError("Unsupported", `write the backup outside ${filesDir}, which it copies`);
  const folder = dirname(out);
  if (!(await stat(folder).catch(() => null))?.isDirectory()) throw new BackupError("Not found", `folder ${folder} does not exist`);
  if (!options.force && (await stat(out).catch(() => null))) throw new BackupError("Already exists", `${out} already exists; pass --force to replace it`);

  const createdAt = (options.now ?? (() => new Date()))();
  // The snapshot sits beside the archive, not in /tmp (often a small tmpfs), and goes once the archive is written.
  const work = await mkdtemp(join(folder, `.${basename(out)}.work-`));
  const partial = join(work, "archive.tar.gz");
  const writer = new ArchiveWriter(partial);
  try {
    const snapshot = join(work, DATABASE_NAME);
    // The database first: every file a committed row names is already on disk then (files are written before the row
    // that names them and never changed or removed after), so the files copied next cover the snapshot.
    const schema = snapshotDatabase(databasePath, snapshot);
    const entries: Entry[] = [];
    const db = await writer.addFile(DATABASE_NAME, snapshot);
    if (!db) throw new BackupError("Database error", "the database snapshot vanished before it was archived");
    entries.push(db);
    await rm(snapshot);
    const { files: found, others } = await listFiles(filesDir);
    const skipped = others.map((p) => relative(filesDir, p).split(sep).join("/"));
    for (const file of found) {
      const key = relative(filesDir, file).split(sep).join("/");
      // Local storage writes `<key>.tmp-<pid>-<n>` and renames it: such a file is an upload still under way.
      if (!isSafeKey(key) || isPartialFile(key)) {
        skipped.push(key);
        continue;
      }
      const entry = await writer.addFile(FILES_PREFIX + key, file);
      if (entry) entries.push(entry);
    }
    const manifest: Manifest = buildManifest(schema, createdAt, entries);
    await writer.addBytes(MANIFEST_NAME, new TextEncoder().encode(JSON.stringify(manifest, null, 2)));
    await writer.finish();
    await rename(partial, out);
    await syncPath(folder);
    const files = entries.filter((e) => e.path.startsWith(FILES_PREFIX));
    return {
      path: out,
      bytes: (await stat(out)).size,
      schema,
      files: files.length,
      file_bytes: files.reduce((n, e) => n + e.size, 0),
      database_bytes: db.size,
      skipped,
    };
  } catch (e) {
    await writer.abort();
    throw e;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Every regular file under `dir`, sorted (none when the folder does not exist yet: nothing was ever stored), and apart
 * the links and other non-files, which the storage never makes and a backup does not follow.
 */
async function listFiles(dir: string): Promise<{ files: string[]; others: string[] }> {
  const out: string[] = [];
  const others: string[] = [];
  const walk = async (at: string) => {
    let items;
    try {
      items = await readdir(at, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
      throw e;
    }
    for (const item of items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = join(at, item.name);
      if (item.isDirectory()) await walk(full);
      else if (item.isFile()) out.push(full);
      else others.push(full);
    }
  };
  await walk(dir);
  return { files: out, others };
}
