// The archive format: a gzip-compressed tar (tar-stream), every entry streamed from or to disk and hashed on the way, so
// no file is ever held in memory whole and every checksum is of the bytes actually written or read.
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { open } from "node:fs/promises";
import { Transform, type Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import * as tar from "tar-stream";
import { BackupError } from "./errors";
import type { Entry } from "./manifest";

/** A pass-through that counts and hashes what flows through it; `entry(path)` reads the result once it has ended. */
export function hashing() {
  const hash = createHash("sha256");
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, entry: (path: string): Entry => ({ path, size, sha256: hash.digest("hex") }) };
}

/** Writes a .tar.gz to `file` (created, never overwritten), one entry at a time, hashing each. */
export class ArchiveWriter {
  private readonly pack = tar.pack();
  private readonly done: Promise<void>;
  /** Rejects when compression or the file write fails, so a stalled entry does not wait forever. */
  private readonly failed: Promise<never>;

  constructor(readonly file: string) {
    this.done = (async () => {
      // Readable by its owner only: it holds token hashes, webhook secrets and customer data.
      await pipeline(this.pack as unknown as Readable, createGzip(), createWriteStream(file, { flags: "wx", mode: 0o600 }));
      // The archive is the backup: it reaches the disk before anyone is told it was written.
      await syncPath(file);
    })();
    this.failed = this.done.then(() => new Promise<never>(() => {}));
    this.failed.catch(() => {});
  }

  /** Streams a file from disk into the archive as `name`; null (and nothing written) when it no longer exists. */
  async addFile(name: string, path: string): Promise<Entry | null> {
    let handle;
    try {
      handle = await open(path, "r");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw e;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) return null;
      const sink = this.pack.entry({ name, size: info.size, mode: 0o644, mtime: info.mtime, type: "file" });
      const h = hashing();
      await Promise.race([
        pipeline(handle.createReadStream({ autoClose: false }), h.stream, sink as unknown as Writable),
        this.failed,
      ]);
      return h.entry(name);
    } finally {
      await handle.close();
    }
  }

  /** Adds a small in-memory entry (the manifest). */
  async addBytes(name: string, bytes: Uint8Array): Promise<void> {
    await Promise.race([
      new Promise<void>((resolve, reject) => this.pack.entry({ name, size: bytes.length, mode: 0o644, type: "file" }, Buffer.from(bytes), (e) => (e ? reject(e) : resolve()))),
      this.failed,
    ]);
  }

  /** Ends the archive and waits until it is on disk. */
  async finish(): Promise<void> {
    this.pack.finalize();
    await this.done;
  }

  /** Gives up: stops the streams; the caller removes the file. */
  async abort(): Promise<void> {
    this.pack.destroy();
    await this.done.catch(() => {});
  }
}

/** fsync of a file or folder (a folder's makes the renames in it durable). */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export type ArchiveEntry = { name: string; type: string; size: number; stream: Readable };

/**
 * Calls `onEntry` for each entry of the .tar.gz at `file`, in order; `onEntry` must consume (or pipe) the stream.
 * A truncated, corrupted or non-gzip file ends in BackupError("Damaged archive").
 */
export async function readArchive(file: string, onEntry: (entry: ArchiveEntry) => Promise<void>): Promise<void> {
  const source = createReadStream(file);
  const extract = tar.extract();
  const feeding = pipeline(source, createGunzip(), extract as unknown as Writable);
  feeding.catch(() => {});
  try {
    for await (const stream of extract) {
      const h = stream.header;
      await onEntry({ name: h.name, type: h.type, size: h.size, stream: stream as unknown as Readable });
      // An entry the callback left unread is drained, or the archive would stall on it.
      (stream as unknown as Readable).resume();
    }
    await feeding;
  } catch (e) {
    source.destroy();
    await feeding.catch(() => {});
    // Our own refusals, and failures of the disk being written (they name a system call), are not the archive's fault.
    if (e instanceof BackupError || (e as NodeJS.ErrnoException).syscall) throw e;
    throw new BackupError("Damaged archive", `${file} is not a readable vitrin backup (a .tar.gz): ${(e as Error).message}`);
  }
}
