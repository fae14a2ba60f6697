// What a video's downloads are called (its product, template, format and language rather than its id) and the links
// that save them under that name: the API's download_url and thumbnail_download_url, which the Studio's buttons use.
import { posix } from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db";
import { UNSAFE_IN_NAMES, type StoragePlugin } from "../plugins";
import { templateWords, type TemplateRegistry } from "../templates";
import type { VideoRow } from "./types";

/** Every run of what a download name may not hold (the plugin kit's list). */
const UNSAFE_RUNS = new RegExp(UNSAFE_IN_NAMES.source, "g");
/** A product name longer than this is cut, so the name keeps its template, format and language. */
const MAX_PRODUCT = 60;

/** One part of the name: its words joined by "-", unsafe characters left out, no dots or dashes at its ends. */
function part(text: string, max = 40): string {
  const words = text.normalize("NFC").replace(UNSAFE_RUNS, " ").trim().split(/\s+/).join("-");
  return [...words].slice(0, max).join("").replace(/^[-.]+|[-.]+$/g, "");
}

export type DownloadOf = { id: string; productName: string; templateName: string; aspect: string; language: string };

/**
 * The file name for a video's download with extension `ext` ("mp4", "jpg"): `Product_Template_9x16_en.mp4`, each part
 * safe for Windows, macOS and Linux; the video's id when neither product nor template leaves anything.
 */
export function downloadName(video: DownloadOf, ext: string): string {
  const named = [part(video.productName, MAX_PRODUCT), part(video.templateName)].filter(Boolean);
  if (named.length === 0) return `${video.id}.${ext}`;
  const rest = [part(video.aspect.replace(":", "x")), part(video.language)].filter(Boolean);
  return `${[...named, ...rest].join("_")}.${ext}`;
}

export type VideoLinks = { video: string | null; thumbnail: string | null; videoDownload: string | null; thumbnailDownload: string | null };

const NO_LINKS: VideoLinks = { video: null, thumbnail: null, videoDownload: null, thumbnailDownload: null };

/** What the links are made with: the storage, and the templates whose names the downloads take. */
export type LinkDeps = { storage: StoragePlugin; templates: TemplateRegistry };

/**
 * A completed video's links, to play and to download, for the video and its thumbnail; all null before it completes
 * and once its files are deleted. `productName` is null for a product deleted since: its id stands in, as for a
 * template no longer offered.
 */
export function videoLinks(row: VideoRow, deps: LinkDeps, productName: string | null): VideoLinks {
  if (row.status !== "completed" || row.filesDeletedAt !== null) return NO_LINKS;
  const template = deps.templates.get(row.templateId)?.info;
  const of: DownloadOf = {
    id: row.id,
    productName: productName ?? row.productId,
    // In the video's own language, as its other words are, when the template has a name in it.
    templateName: template ? templateWords(template, row.language).name : row.templateId,
    aspect: row.aspectRatio,
    language: row.language,
  };
  const plain = (key: string | null) => (key ? deps.storage.url(key) : null);
  const named = (key: string | null) => (key ? deps.storage.url(key, { download: downloadName(of, posix.extname(key).slice(1)) }) : null);
  return { video: plain(row.videoKey), thumbnail: plain(row.thumbnailKey), videoDownload: named(row.videoKey), thumbnailDownload: named(row.thumbnailKey) };
}

/** The names of the account's products whose completed videos are among `rows`, by id: their downloads take them. */
export async function productNames(db: Db, accountId: string, rows: VideoRow[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.filter((r) => r.status === "completed" && r.filesDeletedAt === null).map((r) => r.productId))];
  if (ids.length === 0) return new Map();
  const { products } = db.schema;
  const found = await db.read
    .select({ id: products.id, name: products.name })
    .from(products)
    .where(and(eq(products.accountId, accountId), inArray(products.id, ids)));
  return new Map(found.map((p) => [p.id, p.name]));
}
