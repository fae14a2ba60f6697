// A product and its dekupe state as the API shows them.
import { iso, parseMetadata } from "../kernel";
import type { StoragePlugin } from "../plugins";
import type { DekupeErrorCode } from "./dekupe-errors";
import type { DekupeStatus, ProductRow } from "./types";

export function productJson(row: ProductRow, storage: StoragePlugin) {
  return {
    id: row.id,
    object: "product",
    name: row.name,
    description: row.description,
    image_url: storage.url(row.imageKey),
    original_image_url: storage.url(row.originalKey),
    dekupe: dekupeJson(row, storage),
    metadata: parseMetadata(row.metadata),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/**
 * dekupe_box holds the cut-out's box within its PNG and, since source_box came in, the attempt's place in the photo,
 * crop and warnings; rows from before that show null and no warnings.
 */
function placement(stored: string | null) {
  if (!stored) return { box: null, source_box: null, crop: null, warnings: [] as string[] };
  const { x, y, width, height, source_box, crop, warnings } = JSON.parse(stored);
  return { box: { x, y, width, height }, source_box: source_box ?? null, crop: crop ?? null, warnings: (warnings ?? []) as string[] };
}

export function dekupeJson(row: ProductRow, storage: StoragePlugin) {
  return {
    enabled: row.dekupeEnabled,
    status: row.dekupeStatus as DekupeStatus,
    preview_url: row.dekupePreviewKey ? storage.url(row.dekupePreviewKey) : null,
    mask_url: row.dekupeMaskKey ? storage.url(row.dekupeMaskKey) : null,
    attempts: row.dekupeAttempts,
    retries_left: row.dekupeRetriesLeft,
    ...placement(row.dekupeBox),
    timings: row.dekupeTimings ? JSON.parse(row.dekupeTimings) : null,
    error: row.dekupeError,
    error_code: row.dekupeErrorCode as DekupeErrorCode | null,
    updated_at: iso(row.dekupeUpdatedAt),
  };
}
