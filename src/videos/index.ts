// Videos: accept a request (validate, reserve credits, queue a render), render it with the renderer plugin in a job
// (waiting for the product's cut-out if it is still being made), store the result, and tell the caller by webhook.
// A video that fails is refunded; credits_used is the template's price on success and 0 on failure.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import type { Db, Orm } from "../db";
import type { Clock } from "../kernel";
import type { videos } from "../db/schema";
import { iso, newId } from "../kernel";
import { createPager, type PageQuery } from "../db/pagination";
import { errors, type FieldProblem } from "../kernel";
import type { Config } from "../config";
import type { Logger } from "../kernel";
import { JobAborted, type JobEngine } from "../jobs";
import type { RendererPlugin, StoragePlugin } from "../plugins";
import type { Webhooks } from "../webhooks";
import type { Billing } from "../billing/service";
import { templateLanguage } from "./language";
import type { TemplateRegistry } from "../templates";

export const RENDER_JOB = "video.render";
/** How often a render waiting for its product's cut-out looks again. */
export const DEKUPE_WAIT_MS = 2000;

export type VideoRow = typeof videos.$inferSelect;

export type NewVideo = {
  template_id: string;
  product_id: string;
  user_prompt?: Record<string, unknown>;
  language?: string;
  webhook_url?: string;
};

export type VideoDeps = {
  db: Db;
  clock: Clock;
  config: Config;
  logger: Logger;
  storage: StoragePlugin;
  renderer: RendererPlugin;
  templates: TemplateRegistry;
  jobs: JobEngine;
  webhooks: Webhooks;
  billing: Billing;
  checkUrl: (url: string, field?: string) => Promise<void>;
  /** 1 renders at full size; tests render smaller through the same code. */
  renderScale?: number;
  renderTimeoutMs: number;
  /** How long a video waits for its product's cut-out before it fails (and is refunded). */
  dekupeWaitMs: number;
  /** Told each render attempt's outcome and how long it took (metrics). */
  observeRender?: (template: string, outcome: "completed" | "failed", seconds: number) => void;
};

export function videoJson(row: VideoRow, storage: StoragePlugin) {
  const completed = row.status === "completed";
  return {
    id: row.id,
    object: "video",
    status: row.status,
    template_id: row.templateId,
    product_id: row.productId,
    language: row.language,
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
    created_at: iso(row.createdAt),
    started_at: iso(row.startedAt),
    completed_at: iso(row.completedAt),
    failed_at: iso(row.failedAt),
  };
}

class RenderFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function createVideos(deps: VideoDeps) {
  const { db, clock, config, logger, storage, renderer, templates, jobs, webhooks, billing } = deps;
  const { accounts, products, videos } = db.schema;
  const page = createPager<VideoRow>(db.read, videos, [videos.accountId], "video");

  async function load(orm: Orm, id: string): Promise<VideoRow | null> {
    const [row] = await orm.select().from(videos).where(eq(videos.id, id)).limit(1);
    return row ?? null;
  }

  /** Checks a request and works out what it costs; throws the contract's errors. */
  async function prepare(accountId: string, input: NewVideo) {
    const template = templates.get(input.template_id);
    if (!template) throw errors.notFound("template");
    const [product] = await db.read
      .select({ id: products.id })
      .from(products)
      .where(and(eq(products.accountId, accountId), eq(products.id, input.product_id)))
      .limit(1);
    if (!product) throw errors.notFound("product");
    const [account] = await db.read.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
    if (!account) throw errors.unauthorized();
    if (template.info.premium && !account.isPremium) {
      throw errors.forbidden(`The template ${template.info.id} needs a premium account.`);
    }
    const prompt = input.user_prompt ?? {};
    const checked = template.validatePrompt(prompt);
    if (!checked.ok) {
      const details: FieldProblem[] = checked.problems.map((p) => ({ field: p.field ? `user_prompt.${p.field}` : "user_prompt", message: p.message }));
      throw errors.validation(details);
    }
    const language = templateLanguage(template, input.language ?? account.language, { fromAccount: input.language === undefined });
    if (input.webhook_url !== undefined) await deps.checkUrl(input.webhook_url, "webhook_url");
    return { template, prompt, language, credits: template.info.credits, available: account.credits };
  }

  /** Marks a video failed, refunds its credits and tells the caller, in the caller's transaction; idempotent. */
  async function failIn(tx: Orm, videoId: string, code: string, message: string): Promise<boolean> {
    const at = clock.now();
    const row = await load(tx, videoId);
    if (!row || row.status === "completed" || row.status === "failed") return false;
    const [failed] = await tx
      .update(videos)
      .set({ status: "failed", errorCode: code, errorMessage: message, failedAt: at, creditsUsed: 0, updatedAt: at })
      .where(eq(videos.id, videoId))
      .returning();
    await billing.bookEntry(tx, {
      accountId: row.accountId,
      amount: row.credits,
      type: "refund",
      description: `Refund for video ${row.id} (${code})`,
      platform: "system",
      reference: `video:${row.id}:refund`,
      at,
    });
    if (row.webhookUrl) {
      await webhooks.emit(tx, { accountId: row.accountId, event: "video.failed", url: row.webhookUrl, data: videoJson(failed, storage), videoId: row.id });
    }
    return true;
  }

  async function fail(videoId: string, code: string, message: string) {
    if (await db.tx((tx) => failIn(tx, videoId, code, message))) logger.warn("video failed", { video: videoId, code, error: message });
  }

  /** Progress goes to the database at most every 5 points or second, in order, without holding up ffmpeg. */
  function progressWriter(videoId: string) {
    let last = -1;
    let lastAt = 0;
    let chain: Promise<unknown> = Promise.resolve();
    return {
      report(percent: number) {
        const p = Math.max(0, Math.min(99, Math.floor(percent)));
        const now = Date.now();
        if (p <= last || (p - last < 5 && now - lastAt < 1000)) return;
        last = p;
        lastAt = now;
        chain = chain.then(() =>
          db.tx((tx) =>
            tx.update(videos).set({ progress: p, updatedAt: clock.now() }).where(and(eq(videos.id, videoId), eq(videos.status, "processing"))),
          ),
        ).catch((e) => logger.warn("could not record progress", { video: videoId, err: e }));
      },
      done: () => chain,
    };
  }

  async function renderJob(videoId: string, signal: AbortSignal) {
    const video = await load(db.read, videoId);
    if (!video || video.status === "completed" || video.status === "failed") return;
    const [product] = await db.read.select().from(products).where(eq(products.id, video.productId)).limit(1);
    if (!product) return fail(video.id, "product_missing", "The product was deleted before its video was made.");
    if (product.dekupeStatus === "processing") {
      // A cut-out that has not come in time will not: the video fails and is refunded rather than waiting forever.
      if (clock.now() - video.createdAt >= deps.dekupeWaitMs) {
        const minutes = Math.round(deps.dekupeWaitMs / 60_000);
        return fail(video.id, "dekupe_timeout", `The product's cut-out was not ready within ${minutes} min of the video's request.`);
      }
      // Wait for the cut-out without spending attempts: a fresh job looks again shortly.
      await db.tx((tx) => jobs.enqueue(tx, RENDER_JOB, { videoId }, { runAt: clock.now() + DEKUPE_WAIT_MS, concurrencyKey: video.accountId }));
      return;
    }
    const at = clock.now();
    await db.tx((tx) =>
      tx
        .update(videos)
        .set({ status: "processing", startedAt: video.startedAt ?? at, progress: 0, updatedAt: at })
        .where(and(eq(videos.id, videoId), sql`${videos.status} IN ('queued', 'processing')`)),
    );
    const scratch = join(config.dataDir, "tmp");
    await Bun.write(join(scratch, ".keep"), "");
    const workDir = await mkdtemp(join(scratch, `render-${videoId}-`));
    const progress = progressWriter(videoId);
    const renderStarted = performance.now();
    const observe = (outcome: "completed" | "failed") => deps.observeRender?.(video.templateId, outcome, (performance.now() - renderStarted) / 1000);
    try {
      const image = await storage.get(product.imageKey);
      if (!image) throw new RenderFailure("product_image_missing", "The product's image is missing from storage.");
      const ext = product.imageType === "image/png" ? "png" : product.imageType === "image/webp" ? "webp" : "jpg";
      const imagePath = join(workDir, `product.${ext}`);
      await writeFile(imagePath, new Uint8Array(await image.body.arrayBuffer()));
      const cutout = product.dekupeStatus === "ready" && product.imageKey === product.dekupePreviewKey;
      let maskPath: string | null = null;
      if (cutout && product.dekupeMaskKey) {
        const mask = await storage.get(product.dekupeMaskKey);
        if (mask) {
          maskPath = join(workDir, "mask.png");
          await writeFile(maskPath, new Uint8Array(await mask.body.arrayBuffer()));
        }
      }
      let result;
      try {
        result = await renderer.render({
          workDir,
          templateId: video.templateId,
          product: { id: product.id, name: product.name, description: product.description, imagePath, maskPath, cutout },
          prompt: JSON.parse(video.userPrompt),
          language: video.language,
          scale: deps.renderScale,
          signal,
          onProgress: progress.report,
        });
      } catch (e) {
        if (signal.aborted) throw e;
        // The renderer says why it stopped (its own wall-clock limit, ffmpeg killed, bad input…).
        const why = (e as { reason?: string }).reason;
        throw new RenderFailure(why === "timeout" ? "render_timeout" : "render_failed", (e as Error).message);
      }
      await progress.done();
      const suffix = newId("file").slice(5);
      const videoKey = `videos/${videoId}/video-${suffix}.mp4`;
      const thumbnailKey = `videos/${videoId}/thumbnail-${suffix}.jpg`;
      await storage.put(videoKey, Bun.file(result.videoPath), "video/mp4");
      await storage.put(thumbnailKey, Bun.file(result.thumbnailPath), "image/jpeg");
      const done = clock.now();
      const stored = await db.tx(async (tx) => {
        const current = await load(tx, videoId);
        if (!current || current.status !== "processing") return false;
        const [completed] = await tx
          .update(videos)
          .set({
            status: "completed",
            progress: 100,
            videoKey,
            thumbnailKey,
            durationMs: Math.round(result.durationSeconds * 1000),
            width: result.width,
            height: result.height,
            creditsUsed: current.credits,
            completedAt: done,
            updatedAt: done,
          })
          .where(eq(videos.id, videoId))
          .returning();
        if (current.webhookUrl) {
          await webhooks.emit(tx, {
            accountId: current.accountId,
            event: "video.completed",
            url: current.webhookUrl,
            data: videoJson(completed, storage),
            videoId,
          });
        }
        return true;
      });
      if (!stored) {
        await storage.delete(videoKey);
        await storage.delete(thumbnailKey);
      } else observe("completed");
    } catch (e) {
      const reason = signal.reason;
      if (signal.aborted && reason instanceof JobAborted && reason.why !== "timeout") throw e; // shutdown or lost lease: run again later
      observe("failed");
      if (signal.aborted && reason instanceof JobAborted && reason.why === "timeout") {
        await fail(videoId, "render_timeout", `The render took longer than ${Math.round(deps.renderTimeoutMs / 1000)} s and was stopped.`);
      } else if (e instanceof RenderFailure) {
        await fail(videoId, e.code, e.message);
      } else {
        throw e;
      }
    } finally {
      await progress.done();
      await rm(workDir, { recursive: true, force: true });
    }
  }

  jobs.register<{ videoId: string }>(RENDER_JOB, (job) => renderJob(job.payload.videoId, job.signal), {
    concurrency: Math.max(1, Math.floor(navigator.hardwareConcurrency / 2)),
    keyConcurrency: 2,
    maxAttempts: 3,
    leaseMs: 60_000,
    timeoutMs: deps.renderTimeoutMs,
    // Its last attempt failed, timed out or died with its instance: the video fails and its credits come back.
    onDead: async (tx, job) => {
      const videoId = (job.payload as { videoId?: unknown } | undefined)?.videoId;
      if (typeof videoId !== "string") return;
      if (await failIn(tx, videoId, "render_failed", `The video could not be rendered after ${job.attempts} attempts: ${job.error}`)) {
        logger.warn("video failed: its render job is dead", { video: videoId, job: job.id, error: job.error });
      }
    },
  });

  return {
    async create(accountId: string, input: NewVideo) {
      const { template, prompt, language, credits } = await prepare(accountId, input);
      const at = clock.now();
      const id = newId("vid");
      const row = await db.tx(async (tx) => {
        // Reserving the credits is part of creating the video: no video without payment, no payment without video.
        await billing.bookEntry(tx, {
          accountId,
          amount: -credits,
          type: "usage",
          description: `Video ${id} (${template.info.name})`,
          platform: "system",
          reference: `video:${id}:usage`,
          at,
        });
        const [inserted] = await tx
          .insert(videos)
          .values({
            id,
            accountId,
            productId: input.product_id,
            templateId: template.info.id,
            language,
            userPrompt: JSON.stringify(prompt),
            webhookUrl: input.webhook_url ?? null,
            status: "queued",
            credits,
            createdAt: at,
            updatedAt: at,
          })
          .returning();
        await jobs.enqueue(tx, RENDER_JOB, { videoId: id }, { concurrencyKey: accountId });
        return inserted;
      });
      return videoJson(row, storage);
    },

    async estimate(accountId: string, input: NewVideo) {
      const { template, credits, available, language } = await prepare(accountId, input);
      return {
        object: "video_estimate",
        template_id: template.info.id,
        language,
        credits,
        available,
        sufficient: available >= credits,
        duration: template.info.duration,
        width: template.info.width,
        height: template.info.height,
      };
    },

    async get(accountId: string, id: string) {
      const row = await load(db.read, id);
      if (!row || row.accountId !== accountId) throw errors.notFound("video");
      return videoJson(row, storage);
    },

    async list(accountId: string, query: PageQuery) {
      const found = await page([accountId], query);
      return { data: found.data.map((r) => videoJson(r, storage)), has_more: found.has_more };
    },

    fail,
  };
}

export type Videos = ReturnType<typeof createVideos>;
