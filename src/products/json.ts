// A product and its dekupe state as the API shows them.
import { iso, parseMetadata } from "../kernel";
import type { StoragePlugin } from "../plugins";
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

export function dekupeJson(row: ProductRow, storage: StoragePlugin) {
  return {
    enabled: row.dekupeEnabled,
    status: row.dekupeStatus as DekupeStatus,
    preview_url: row.dekupePreviewKey ? storage.url(row.dekupePreviewKey) : null,
    mask_url: row.dekupeMaskKey ? storage.url(row.dekupeMaskKey) : null,
    attempts: row.dekupeAttempts,
    retries_left: row.dekupeRetriesLeft,
    box: row.dekupeBox ? JSON.parse(row.dekupeBox) : null,
    timings: row.dekupeTimings ? JSON.parse(row.dekupeTimings) : null,
    error: row.dekupeError,
    updated_at: iso(row.dekupeUpdatedAt),
  };
}
