// An example storage plugin loaded from a folder: files held in the process's memory, served by vitrin under
// {cdn_url}. For demos and throwaway instances only: everything stored is gone when vitrin stops. Copy the folder next
// to the vitrin binary (plugins/storage-memory/) and start with VITRIN_STORAGE=memory.
//
// Settings (declared below, so vitrin checks them at start and lists them; a folder plugin's are named VITRIN_PLUGIN_<NAME>_<SETTING>):
//   VITRIN_PLUGIN_MEMORY_MAX_BYTES  optional: refuse to hold more than this many bytes in all (default 512 MiB)
//
// Only types are imported from vitrin (erased at run time); everything else comes from `host`, because a compiled
// binary has no node_modules to import from. Check it with test/conformance/storage.ts.
import type { PluginHost } from "../../../src/plugins/host";
import type { StoragePlugin } from "../../../src/plugins";

const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

// The core makes keys from ids; anything else (`..`, empty parts, spaces, backslashes) is refused, as every storage must.
const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;
const isSafeKey = (key: string) => SAFE_KEY.test(key) && !key.split("/").some((part) => part === "." || part === "..");

type Entry = { bytes: Uint8Array; contentType: string; etag: string; storedAt: number };

/** The slice a Range header asks for, "unsatisfiable", or null for none (or one we ignore, as HTTP allows). */
function rangeOf(header: string | null, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === "" && m[2] === "")) return null;
  const start = m[1] === "" ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const end = m[1] !== "" && m[2] !== "" ? Math.min(Number(m[2]), size - 1) : size - 1;
  return start > end || start >= size ? "unsatisfiable" : { start, end };
}

export default function memoryStorage(host: PluginHost) {
  return host.definePlugin({
    slot: "storage",
    name: "memory",
    description: "Example plugin: files in memory, served by vitrin (lost on restart; demos only).",
    settings: {
      maxBytes: {
        env: "VITRIN_PLUGIN_MEMORY_MAX_BYTES",
        default: String(DEFAULT_MAX_BYTES),
        doc: "Example in-memory storage plugin: the most bytes it holds in all.",
        parse: host.parse.integer(1, Number.MAX_SAFE_INTEGER),
      },
    },
    create(ctx): StoragePlugin {
      const { maxBytes } = ctx.settings;
      const files = new Map<string, Entry>();
      let held = 0;
      let version = 0;

      return {
        slot: "storage",
        name: "memory",
        async init() {
          ctx.logger.warn("files are kept in memory and lost when vitrin stops", { max_bytes: maxBytes, host_api: host.apiVersion });
        },
        async put(key, body, contentType) {
          if (!isSafeKey(key)) throw new Error(`invalid storage key: ${key}`);
          const bytes = body instanceof Uint8Array ? body.slice() : new Uint8Array(await body.arrayBuffer());
          const before = files.get(key)?.bytes.length ?? 0;
          if (held - before + bytes.length > maxBytes) throw new Error(`storage-memory is full (VITRIN_PLUGIN_MEMORY_MAX_BYTES=${maxBytes})`);
          held += bytes.length - before;
          files.set(key, { bytes, contentType, etag: `"${(++version).toString(16)}-${bytes.length.toString(16)}"`, storedAt: Date.now() });
        },
        async get(key) {
          const entry = isSafeKey(key) ? files.get(key) : undefined;
          if (!entry) return null;
          return { body: new Blob([entry.bytes], { type: entry.contentType }), size: entry.bytes.length, contentType: entry.contentType };
        },
        async delete(key) {
          const entry = files.get(key);
          if (!entry) return;
          held -= entry.bytes.length;
          files.delete(key);
        },
        url(key, options) {
          // vitrin's file route names a download its link asks for (`?download=`), as for any storage it serves.
          return host.servedUrl(ctx.config.cdnUrl, key, options?.download);
        },
        async serve(key, request) {
          const entry = isSafeKey(key) ? files.get(key) : undefined;
          if (!entry) return null;
          const size = entry.bytes.length;
          const headers: Record<string, string> = {
            "content-type": entry.contentType,
            // Keys are unique per stored version, so a URL's bytes never change.
            "cache-control": "public, max-age=31536000, immutable",
            etag: entry.etag,
            "last-modified": new Date(entry.storedAt).toUTCString(),
            "accept-ranges": "bytes",
          };
          if (request.headers.get("if-none-match") === entry.etag) return new Response(null, { status: 304, headers });
          const range = rangeOf(request.headers.get("range"), size);
          if (range === "unsatisfiable") return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${size}` } });
          const [start, end, status] = range ? [range.start, range.end, 206] : [0, size - 1, 200];
          if (range) headers["content-range"] = `bytes ${start}-${end}/${size}`;
          headers["content-length"] = String(end - start + 1);
          return new Response(request.method === "HEAD" ? null : entry.bytes.subarray(start, end + 1), { status, headers });
        },
      };
    },
  });
}
