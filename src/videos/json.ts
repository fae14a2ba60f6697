// A video as the API shows it.
import { iso, parseMetadata } from "../kernel";
import { videoLinks, type LinkDeps } from "./downloads";
import type { VideoRow } from "./types";

/**
 * `productName` names a completed video's downloads (null: its product is gone, its id stands in); a video not
 * completed has no links to name. Deleted files (DELETE or retention) leave the record with null URLs and the time
 * they went.
 */
export function videoJson(row: VideoRow, deps: LinkDeps, productName: string | null) {
  const links = videoLinks(row, deps, productName);
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
    video_url: links.video,
    thumbnail_url: links.thumbnail,
    download_url: links.videoDownload,
    thumbnail_download_url: links.thumbnailDownload,
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
