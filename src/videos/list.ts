// An account's videos, newest first in cursor pages, filtered by status, product and creation time
// (`created[gte]` / `created[lte]`, in the format `created_at` is shown in).
import { filteredPagers, type CreatedRange, type Db, type PageQuery } from "../db";
import { errors } from "../kernel";
import { videoJson } from "./json";
import { productNames } from "./downloads";
import type { VideoDeps, VideoRow } from "./types";

export const VIDEO_STATUSES = ["queued", "processing", "completed", "failed"] as const;

export type VideoListQuery = PageQuery & {
  status?: string;
  product_id?: string;
  "created[gte]"?: string;
  "created[lte]"?: string;
};

/** ISO 8601 as `created_at` is written (2026-11-22T12:00:00.000Z), with any zone offset, or a date alone (UTC midnight). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** Whether the YYYY-MM-DD a time starts with is a day of the calendar (Date.parse makes 2026-02-30 into March 2). */
function realDay(raw: string): boolean {
  const [year, month, day] = raw.slice(0, 10).split("-").map(Number) as [number, number, number];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function parseTime(field: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const ms = ISO_TIME.test(raw) && realDay(raw) ? Date.parse(raw) : NaN;
  if (!Number.isFinite(ms)) {
    throw errors.invalidField(field, "must be a time as created_at shows it: ISO 8601 with a zone (2026-11-22T12:00:00Z) or a date (2026-11-22, UTC)");
  }
  return ms;
}

/** The filters of a list request, checked: each bad value is a 422 naming its parameter. */
export function videoFilters(query: VideoListQuery): { status?: string; productId?: string; range: CreatedRange } {
  if (query.status !== undefined && !(VIDEO_STATUSES as readonly string[]).includes(query.status)) {
    throw errors.invalidField("status", `must be one of ${VIDEO_STATUSES.join(", ")}`);
  }
  const from = parseTime("created[gte]", query["created[gte]"]);
  const to = parseTime("created[lte]", query["created[lte]"]);
  if (from !== null && to !== null && from > to) throw errors.invalidField("created[lte]", "is before created[gte]");
  return {
    status: query.status,
    productId: query.product_id,
    range: { from: from ?? Number.MIN_SAFE_INTEGER, to: to ?? Number.MAX_SAFE_INTEGER },
  };
}

/**
 * The account's videos, by the equality filters' pager (src/db's filteredPagers): the created_at bounds ride on the
 * (account_id, created_at, id) index; status and product are checked within that walk.
 */
export function videoLister(db: Db) {
  const { videos } = db.schema;
  const page = filteredPagers<VideoRow>(db.read, videos, [videos.accountId], [videos.status, videos.productId], "video", { createdRange: true });
  return async (deps: VideoDeps, accountId: string, query: VideoListQuery) => {
    const { status, productId, range } = videoFilters(query);
    const found = await page([accountId], [status, productId], query, range);
    const names = await productNames(deps.db, accountId, found.data);
    return { data: found.data.map((r) => videoJson(r, deps, names.get(r.productId) ?? null)), has_more: found.has_more };
  };
}
