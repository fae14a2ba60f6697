// The render job: wait for the product's cut-out if it is still being made, stage the product's image in a scratch
// folder, let the renderer plugin make the video, store it and complete the video (or fail and refund it).
import { rm } from "node:fs/promises";
import { and, eq, sql } from "drizzle-orm";
import type { Orm } from "../db";
import { JobAborted } from "../jobs";
import { newId } from "../kernel";
import type { RenderProduct, RenderResult } from "../plugins";
import { failVideo, loadVideo, RenderFailure } from "./failure";
import { videoJson } from "./json";
import { progressWriter } from "./progress";
import { musicForRender } from "./music";
import { brandedInputs, makeWorkDir, stageProduct, type ProductRow } from "./inputs";
import { aspectOf } from "./aspect";
import { DEKUPE_WAIT_MS, RENDER_JOB, type VideoDeps, type VideoRow } from "./types";

/** The product to render with, or null when there is nothing to render now (product gone, cut-out still coming). */
async function productToRender(deps: VideoDeps, video: VideoRow): Promise<ProductRow | null> {
  const { db, clock } = deps;
  const { products } = db.schema;
  const [product] = await db.read.select().from(products).where(eq(products.id, video.productId)).limit(1);
  if (!product) {
    await failVideo(deps, video.id, "product_missing", "The product was deleted before its video was made.");
    return null;
  }
  if (product.dekupeStatus !== "processing") return product;
  // A cut-out that has not come in time will not: the video fails and is refunded rather than waiting forever.
  if (clock.now() - video.createdAt >= deps.dekupeWaitMs) {
    const minutes = Math.round(deps.dekupeWaitMs / 60_000);
    await failVideo(deps, video.id, "dekupe_timeout", `The product's cut-out was not ready within ${minutes} min of the video's request.`);
    return null;
  }
  // Wait for the cut-out without spending attempts: a fresh job looks again shortly.
  const runAt = clock.now() + DEKUPE_WAIT_MS;
  await db.tx((tx) => deps.jobs.enqueue(tx, RENDER_JOB, { videoId: video.id }, { runAt, concurrencyKey: video.accountId }));
  return null;
}

async function markProcessing(deps: VideoDeps, video: VideoRow) {
  const { videos } = deps.db.schema;
  const at = deps.clock.now();
  await deps.db.tx((tx) =>
    tx
      .update(videos)
      .set({ status: "processing", startedAt: video.startedAt ?? at, progress: 0, updatedAt: at })
      .where(and(eq(videos.id, video.id), sql`${videos.status} IN ('queued', 'processing')`)),
  );
}

/**
 * In the transaction that hands the render back: a processing video is queued again, at progress 0. Only while it is
 * processing: a worker that claims the job next sets it processing in a later transaction.
 */
export async function renderHandedBack(deps: VideoDeps, tx: Orm, videoId: unknown): Promise<void> {
  if (typeof videoId !== "string") return;
  const { videos } = deps.db.schema;
  await tx
    .update(videos)
    .set({ status: "queued", progress: 0, updatedAt: deps.clock.now() })
    .where(and(eq(videos.id, videoId), eq(videos.status, "processing")));
}

type RenderRun = { video: VideoRow; product: RenderProduct; workDir: string; signal: AbortSignal; onProgress: (percent: number) => void };

async function runRenderer(deps: VideoDeps, run: RenderRun): Promise<RenderResult> {
  const { video, product, workDir, signal, onProgress } = run;
  const branded = await brandedInputs(deps, video.accountId, video.templateId, JSON.parse(video.userPrompt), workDir);
  try {
    return await deps.renderer.render({
      workDir,
      templateId: video.templateId,
      product,
      ...branded,
      language: video.language,
      aspect: aspectOf(video.aspectRatio),
      scale: deps.renderScale,
      music: musicForRender(deps, video.music, video.templateId),
      signal,
      onProgress,
    });
  } catch (e) {
    if (signal.aborted) throw e;
    // The renderer says why it stopped (its own wall-clock limit, ffmpeg killed, bad input…).
    const why = (e as { reason?: string }).reason;
    throw new RenderFailure(why === "timeout" ? "render_timeout" : "render_failed", (e as Error).message);
  }
}

type StoredFiles = { videoKey: string; thumbnailKey: string };

/** What a render made: its result and the name of the product it shows (which names the downloads). */
type Rendered = { result: RenderResult; productName: string };

/** Completes a video still processing and queues its webhook, in one transaction; false when it was settled meanwhile. */
async function completeIn(deps: VideoDeps, tx: Orm, videoId: string, files: StoredFiles, { result, productName }: Rendered): Promise<boolean> {
  const { videos } = deps.db.schema;
  const current = await loadVideo(deps, tx, videoId);
  if (!current || current.status !== "processing") return false;
  const done = deps.clock.now();
  const [completed] = await tx
    .update(videos)
    .set({
      status: "completed",
      progress: 100,
      ...files,
      durationMs: Math.round(result.durationSeconds * 1000),
      width: result.width,
      height: result.height,
      creditsUsed: current.credits,
      completedAt: done,
      updatedAt: done,
    })
    .where(eq(videos.id, videoId))
    .returning();
  // To the video's own webhook_url, if it has one, and to the account's endpoints subscribed to the event.
  const data = videoJson(completed, deps, productName);
  await deps.webhooks.publish(tx, { accountId: current.accountId, event: "video.completed", url: current.webhookUrl, data, videoId });
  return true;
}

/** Stores the rendered files and completes the video; the files go again when the video was settled meanwhile. */
async function storeResult(deps: VideoDeps, videoId: string, rendered: Rendered): Promise<boolean> {
  const { result } = rendered;
  const { storage } = deps;
  const suffix = newId("file").slice(5);
  const files = { videoKey: `videos/${videoId}/video-${suffix}.mp4`, thumbnailKey: `videos/${videoId}/thumbnail-${suffix}.jpg` };
  await storage.put(files.videoKey, Bun.file(result.videoPath), "video/mp4");
  await storage.put(files.thumbnailKey, Bun.file(result.thumbnailPath), "image/jpeg");
  const stored = await deps.db.tx((tx) => completeIn(deps, tx, videoId, files, rendered));
  if (!stored) {
    await storage.delete(files.videoKey);
    await storage.delete(files.thumbnailKey);
  }
  return stored;
}

/**
 * What a failed attempt means: a shutdown or a lost lease runs again later (rethrown as is); a timeout or a
 * RenderFailure ends the video; anything else is the job engine's to retry.
 */
async function settleFailedAttempt(deps: VideoDeps, videoId: string, error: unknown, signal: AbortSignal, observe: () => void) {
  const reason = signal.reason;
  if (signal.aborted && reason instanceof JobAborted && reason.why !== "timeout") throw error;
  observe();
  if (signal.aborted && reason instanceof JobAborted && reason.why === "timeout") {
    await failVideo(deps, videoId, "render_timeout", `The render took longer than ${Math.round(deps.renderTimeoutMs / 1000)} s and was stopped.`);
  } else if (error instanceof RenderFailure) {
    await failVideo(deps, videoId, error.code, error.message);
  } else {
    throw error;
  }
}

/** The handler of RENDER_JOB: idempotent, since a job may run again after a crash. */
export async function renderJob(deps: VideoDeps, videoId: string, signal: AbortSignal) {
  const video = await loadVideo(deps, deps.db.read, videoId);
  if (!video || video.status === "completed" || video.status === "failed") return;
  const product = await productToRender(deps, video);
  if (!product) return;
  await markProcessing(deps, video);
  const workDir = await makeWorkDir(deps, `render-${videoId}`);
  const progress = progressWriter(deps, videoId);
  const started = performance.now();
  const observe = (outcome: "completed" | "failed") => deps.observeRender?.(video.templateId, outcome, (performance.now() - started) / 1000);
  try {
    const staged = await stageProduct(deps, workDir, product);
    const result = await runRenderer(deps, { video, product: staged, workDir, signal, onProgress: progress.report });
    await progress.done();
    if (await storeResult(deps, videoId, { result, productName: product.name })) observe("completed");
  } catch (e) {
    await settleFailedAttempt(deps, videoId, e, signal, () => observe("failed"));
  } finally {
    await progress.done();
    await rm(workDir, { recursive: true, force: true });
  }
}
