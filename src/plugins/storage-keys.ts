// Storage keys as the core makes them, what they hold, and where the local storage keeps them on disk: shared by the
// storage plugins and by backup and restore, which copy the local storage's folder.
import { join } from "node:path";

const contentTypes: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  mp4: "video/mp4",
  json: "application/json",
  txt: "text/plain; charset=utf-8",
};

const safeKey = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** True for a key the core could have made: slash-separated plain names, no empty, `.` or `..` parts. */
export function isSafeKey(key: string): boolean {
  return safeKey.test(key) && !key.split("/").some((part) => part === "." || part === "..");
}

export function contentTypeOf(key: string): string {
  const ext = key.slice(key.lastIndexOf(".") + 1).toLowerCase();
  return contentTypes[ext] ?? "application/octet-stream";
}

/** The folder the local storage keeps its files in, each at its key: `<data dir>/files`. */
export function localFilesDir(dataDir: string): string {
  return join(dataDir, "files");
}

/** The name the local storage writes a file under before renaming it to its key, so no reader sees half a file. */
export function partialFileName(path: string, writer: number): string {
  return `${path}.tmp-${process.pid}-${writer}`;
}

/** True for a file the local storage is still writing (see partialFileName). */
export function isPartialFile(path: string): boolean {
  return /\.tmp-\d+-\d+$/.test(path);
}
