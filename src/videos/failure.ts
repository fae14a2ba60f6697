// A video that cannot be made: it is marked failed, its credits come back and the caller hears of it, exactly once.
import { eq } from "drizzle-orm";
import type { Orm } from "../db";
import { videoJson } from "./json";
import type { VideoDeps, VideoRow } from "./types";

/**
 * Why a video failed (its `error.code`): the product was deleted, or its image is gone from storage; its cut-out was
 * not ready in time; the render ran past VITRIN_RENDER_TIMEOUT_MS; the render failed on every attempt.
 */
export const VIDEO_ERROR_CODES = ["product_missing", "product_image_missing", "dekupe_timeout", "render_timeout", "render_failed"] as const;
export type VideoErrorCode = (typeof VIDEO_ERROR_CODES)[number];

/** A render that ends the video (as opposed to one the job engine should try again): its code is the video's error code. */
export class RenderFailure extends Error {
  constructor(
    readonly code: VideoErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export async function loadVideo(deps: VideoDeps, orm: Orm, id: string): Promise<VideoRow | null> {
  const { videos } = deps.db.schema;
  const [row] = await orm.select().from(videos).where(eq(videos.id, id)).limit(1);
  return row ?? null;
}

/** Marks a video failed, refunds its credits and tells the caller, in the caller's transaction; idempotent. */
export async function failIn(deps: VideoDeps, tx: Orm, videoId: string, code: VideoErrorCode, message: string): Promise<boolean> {
  const { videos } = deps.db.schema;
  const at = deps.clock.now();
  const row = await loadVideo(deps, tx, videoId);
  if (!row || row.status === "completed" || row.status === "failed") return false;
  const [failed] = await tx
    .update(videos)
    .set({ status: "failed", errorCode: code, errorMessage: message, failedAt: at, creditsUsed: 0, updatedAt: at })
    .where(eq(videos.id, videoId))
    .returning();
  await deps.billing.bookEntry(tx, {
    accountId: row.accountId,
    amount: row.credits,
    type: "refund",
    description: `Refund for video ${row.id} (${code})`,
    platform: "system",
    reference: `video:${row.id}:refund`,
    at,
  });
  // To the video's own webhook_url, if it has one, and to the account's endpoints subscribed to the event.
  // A failed video has no files, so no downloads to name.
  const data = videoJson(failed, deps, null);
  await deps.webhooks.publish(tx, { accountId: row.accountId, event: "video.failed", url: row.webhookUrl, data, videoId: row.id });
  return true;
}

export async function failVideo(deps: VideoDeps, videoId: string, code: VideoErrorCode, message: string) {
  if (await deps.db.tx((tx) => failIn(deps, tx, videoId, code, message))) {
    deps.logger.warn("video failed", { video: videoId, code, error: message });
  }
}
