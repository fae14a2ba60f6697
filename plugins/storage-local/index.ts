// Storage on local disk under the data dir, served by vitrin itself under {cdn_url} with range and cache support.
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { ConfigError, contentTypeOf, definePlugin, isSafeKey, localFilesDir, partialFileName, servedUrl, type StoragePlugin } from "../../src/plugins";

export function createLocalStorage(root: string, baseUrl: string): StoragePlugin {
  const base = resolve(root);
  /** Maps a key to a path inside the root, or null for anything that could escape it. */
  const pathOf = (key: string): string | null => {
    if (!isSafeKey(key)) return null;
    const full = resolve(base, key);
    return full.startsWith(base + sep) ? full : null;
  };
  let tmpCounter = 0;

  return {
    slot: "storage",
    name: "local",
    async init() {
      try {
        await mkdir(base, { recursive: true });
      } catch (e) {
        throw new ConfigError(`VITRIN_DATA_DIR: the files folder ${base} cannot be made (${(e as Error).message}); set VITRIN_DATA_DIR to a folder this user can write`);
      }
    },
    async ready() {
      try {
        const s = await stat(base);
        return s.isDirectory() ? { ok: true } : { ok: false, detail: `${base} is not a folder` };
      } catch (e) {
        return { ok: false, detail: (e as Error).message };
      }
    },
    async put(key, body) {
      const path = pathOf(key);
      if (!path) throw new Error(`invalid storage key: ${key}`);
      await mkdir(dirname(path), { recursive: true });
      // Write beside the target and rename, so a reader never sees half a file.
      const tmp = partialFileName(path, ++tmpCounter);
      try {
        // Bun.write copies a Bun.file body file-to-file instead of reading it into memory.
        await Bun.write(tmp, body);
        await rename(tmp, path);
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
    },
    async get(key) {
      const path = pathOf(key);
      if (!path) return null;
      const file = Bun.file(path);
      if (!(await file.exists())) return null;
      return { body: file, size: file.size, contentType: contentTypeOf(key) };
    },
    async delete(key) {
      const path = pathOf(key);
      if (!path) return;
      await rm(path, { force: true });
    },
    url(key, options) {
      // vitrin's file route names the download (serveStored), so the link only has to ask.
      return servedUrl(baseUrl, key, options?.download);
    },
    async serve(key, request) {
      const path = pathOf(key);
      return path ? serveFile(path, key, request) : null;
    },
  };
}

/** Answers a GET or HEAD for the file at `path` with caching headers and byte ranges; null when there is no such file. */
async function serveFile(path: string, key: string, request: Request): Promise<Response | null> {
  const file = Bun.file(path);
  let info;
  try {
    info = await stat(path);
  } catch {
    return null;
  }
  if (!info.isFile()) return null;
  const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers: Record<string, string> = {
    "content-type": contentTypeOf(key),
    // Keys are unique per stored version, so a URL's bytes never change.
    "cache-control": "public, max-age=31536000, immutable",
    etag,
    "last-modified": new Date(info.mtimeMs).toUTCString(),
    "accept-ranges": "bytes",
    "x-content-type-options": "nosniff",
  };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  const size = info.size;
  // One range is served; several, or a header that is not a byte range, is ignored and the whole file sent (RFC 9110
  // lets a server do either, and players ask for one).
  const m = /^bytes=(\d*)-(\d*)$/.exec(request.headers.get("range")?.trim() ?? "");
  if (m && (m[1] !== "" || m[2] !== "")) {
    let start: number;
    let end = size - 1;
    if (m[1] === "") {
      // A suffix: the last N bytes ("bytes=-0" asks for none, which no file can give).
      start = Number(m[2]) === 0 ? size : Math.max(0, size - Number(m[2]));
    } else {
      start = Number(m[1]);
      if (m[2] !== "") end = Math.min(Number(m[2]), size - 1);
    }
    if (start > end || start >= size) {
      return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${size}` } });
    }
    return new Response(request.method === "HEAD" ? null : file.slice(start, end + 1), {
      status: 206,
      headers: { ...headers, "content-range": `bytes ${start}-${end}/${size}`, "content-length": String(end - start + 1) },
    });
  }
  return new Response(request.method === "HEAD" ? null : file, {
    status: 200,
    headers: { ...headers, "content-length": String(size) },
  });
}

export default definePlugin({
  slot: "storage",
  name: "local",
  description: "Files under <data dir>/files, served by vitrin under {cdn_url}.",
  create: ({ config }) => createLocalStorage(localFilesDir(config.dataDir), config.cdnUrl),
});
