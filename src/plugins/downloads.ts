// The name a stored file downloads under when its link asks for one: a link to another origin cannot name its download
// with the `download` attribute, so the answer's Content-Disposition does. Shared by vitrin's own file route
// (`/files/…?download=NAME`) and by storages whose links another server answers (S3 presigns the header into its link).
import { posix } from "node:path";
import type { StoragePlugin } from "./contracts";

/**
 * What no file system takes in a name (Windows' <>:"/\|?*), control characters, bidi overrides (which make
 * "gpj.exe" read as "exe.jpg"), what the header itself gives a meaning (";", "%") and what a link would ("#", "&"):
 * runs of them. Also what src/videos leaves out of the parts of a video's download name.
 */
export const UNSAFE_IN_NAMES = /[\u0000-\u001f\u007f<>:"/\\|?*;%#&\u200e\u200f\u202a-\u202e\u2066-\u2069]+/;
/** Every run of them, for replace (a global regex of its own: test() on a shared one would move its lastIndex). */
const UNSAFE_RUNS = new RegExp(UNSAFE_IN_NAMES.source, "g");
/** Characters that take no room (zero-width space, joiners, word joiner, BOM): a name that looks alike but is not. */
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff]/g;
/** Windows keeps these names for devices, whatever follows the first dot (`con.backup.mp4` too). */
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i;
const MAX_STEM = 120;
/** File systems count a name's bytes (ext4 and most: 255 in UTF-8): a stem of 120 CJK letters would be ~360. */
const MAX_STEM_BYTES = 240;
/** Letters NFKD leaves whole (no accent to drop), spelled in ASCII for the header's plain name. */
const ASCII_LETTERS: Record<string, string> = { ı: "i", ß: "ss", æ: "ae", Æ: "AE", ø: "o", Ø: "O", ł: "l", Ł: "L", đ: "d", Đ: "D", œ: "oe", Œ: "OE" };

/** Cuts trailing dots and spaces (Windows drops them) and leading dots (a hidden file on Unix). */
const trimmed = (stem: string) => stem.replace(/^[.\s-]+/, "").replace(/[.\s]+$/, "");

/** The leading characters whose UTF-8 stays within `max` bytes (whole characters, never half of one). */
function withinBytes(chars: string[], max: number): string {
  let bytes = 0;
  let n = 0;
  for (; n < chars.length; n++) {
    bytes += Buffer.byteLength(chars[n]!);
    if (bytes > max) break;
  }
  return chars.slice(0, n).join("");
}

/**
 * The file name a download of `key` takes from `asked`: its unsafe characters replaced, at most 120 characters, and
 * always the stored file's own extension (a link cannot turn a video into "setup.exe"); the key's own name when
 * nothing usable is left. Also at most 240 bytes of UTF-8 before the extension.
 */
export function downloadFileName(asked: string, key: string): string {
  const own = posix.basename(key);
  const ext = posix.extname(own);
  let stem = asked.normalize("NFC").replace(INVISIBLE, "").replace(UNSAFE_RUNS, "-").replace(/\s+/g, " ");
  if (ext && stem.toLowerCase().endsWith(ext.toLowerCase())) stem = stem.slice(0, -ext.length);
  stem = trimmed(withinBytes([...trimmed(stem)].slice(0, MAX_STEM), MAX_STEM_BYTES));
  if (!stem) return own;
  return `${RESERVED.test(stem) ? `${stem}_` : stem}${ext}`;
}

/** `attachment` with the name twice: plain ASCII for old clients, and exact as UTF-8 (RFC 6266, RFC 8187). */
export function attachment(name: string): string {
  const ascii = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[ıßæÆøØłŁđĐœŒ]/g, (c) => ASCII_LETTERS[c]!)
    .replace(/[^\x20-\x7e]|["\\]/g, "_")
    // A word of another script is one "_" with the separators around it, not one per letter ("…_1x1_ja", not "…____").
    .replace(/[_-]*_[_-]*/g, "_");
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/**
 * What vitrin answers at {cdn_url}/<key> for a storage that serves its files itself: the plugin's answer, named as a
 * download when the link asks (`?download=NAME`); null when the plugin has no such file (or no serve()).
 */
export async function serveStored(storage: StoragePlugin, key: string, request: Request): Promise<Response | null> {
  const res = storage.serve ? await storage.serve(key, request) : null;
  if (!res) return null;
  const asked = new URL(request.url).searchParams.get("download");
  if (asked !== null) res.headers.set("content-disposition", attachment(downloadFileName(asked, key)));
  return res;
}

/** The link under {cdn_url} (or any base vitrin serves) that asks for `key` as a download named `name`, when asked. */
export function servedUrl(base: string, key: string, name?: string): string {
  return name === undefined ? `${base}/${key}` : `${base}/${key}?download=${encodeURIComponent(name)}`;
}
