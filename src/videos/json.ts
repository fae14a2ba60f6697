// A video as the API shows it.
import { iso, parseMetadata } from "../kernel";
import type { StoragePlugin } from "../plugins";
import type { VideoRow } from "./types";

export function videoJson(row: VideoRow, storage: StoragePlugin) {
  // Deleted files (DELETE or retention) leave the record with null URLs and the time they went.
  const completed = row.status === "completed" && row.filesDeletedAt === null;
  return {
    id: row.id,
    object: "video",
    status: row.status,
    template_id: row.templateId,
    product_id: row.productId,
    language: row.language,
    aspect_ratio: row.aspectRatio,
    user_prompt: JSON.parse(row.userPrompt) as Record<string, unknown>,
    webhook_url: row.webhookUrl,
    progress: row.progress,
    video_url: completed && row.videoKey ? storage.url(row.videoKey) : null,
    thumbnail_url: completed && row.thumbnailKey ? storage.url(row.thumbnailKey) : null,
    duration: row.durationMs === null ? null : row.durationMs / 1000,
    width: row.width,
    height: row.height,
    credits_used: row.creditsUsed,
    credits_reserved: row.status === "queued" || row.status === "processing" ? row.credits : 0,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage } : null,
    metadata: parseMetadata(row.metadata),
    created_at: iso(row.createdAt),
    started_at: iso(row.startedAt),
    completed_at: iso(row.completedAt),
    failed_at: iso(row.failedAt),
    files_deleted_at: iso(row.filesDeletedAt),
  };
}
