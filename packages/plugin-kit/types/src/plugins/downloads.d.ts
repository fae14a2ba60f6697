import type { StoragePlugin } from "./contracts";
/**
 * What no file system takes in a name (Windows' <>:"/\|?*), control characters, bidi overrides (which make
 * "gpj.exe" read as "exe.jpg"), what the header itself gives a meaning (";", "%") and what a link would ("#", "&"):
 * runs of them. Also what src/videos leaves out of the parts of a video's download name.
 */
export declare const UNSAFE_IN_NAMES: RegExp;
/**
 * The file name a download of `key` takes from `asked`: its unsafe characters replaced, at most 120 characters, and
 * always the stored file's own extension (a link cannot turn a video into "setup.exe"); the key's own name when
 * nothing usable is left. Also at most 240 bytes of UTF-8 before the extension.
 */
export declare function downloadFileName(asked: string, key: string): string;
/** `attachment` with the name twice: plain ASCII for old clients, and exact as UTF-8 (RFC 6266, RFC 8187). */
export declare function attachment(name: string): string;
/**
 * What vitrin answers at {cdn_url}/<key> for a storage that serves its files itself: the plugin's answer, named as a
 * download when the link asks (`?download=NAME`); null when the plugin has no such file (or no serve()).
 */
export declare function serveStored(storage: StoragePlugin, key: string, request: Request): Promise<Response | null>;
/** The link under {cdn_url} (or any base vitrin serves) that asks for `key` as a download named `name`, when asked. */
export declare function servedUrl(base: string, key: string, name?: string): string;
