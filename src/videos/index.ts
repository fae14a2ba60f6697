// Videos: accept a request (validate, reserve credits, queue a render), render it with the renderer plugin in a job
// (waiting for the product's cut-out if it is still being made), store the result, and tell the caller by webhook.
// A video that fails is refunded; credits_used is the template's price on success and 0 on failure. Its files can be
// deleted (lifecycle.ts, also on a retention schedule), and lists are filtered (list.ts). This face assembles the
// named functions of its files over one dependencies object.
import { failIn, failVideo, type VideoErrorCode } from "./failure";
import { sweepScratch } from "./inputs";
import { customerError } from "../jobs";
import { renderHandedBack, renderJob } from "./render";
import { previewVideo } from "./preview";
import { deleteVideoFiles, registerRetention } from "./lifecycle";
import { videoLister, type VideoListQuery } from "./list";
import { createVideo, estimateVideo, getVideo } from "./requests";
import { RENDER_JOB, type NewVideo, type VideoDeps } from "./types";
import { LayoutVerdicts } from "./verdicts";

export { DEKUPE_WAIT_MS, RENDER_JOB, type NewVideo, type VideoDeps, type VideoRow } from "./types";
export { videoJson } from "./json";
export { VIDEO_ERROR_CODES, type VideoErrorCode } from "./failure";
export { VIDEO_STATUSES, type VideoListQuery } from "./list";
export { RETENTION_EVERY_MS, RETENTION_JOB } from "./lifecycle";
export { templateLanguage } from "./language";
export { VIDEO_PREVIEW_SCALE } from "./preview";

export function createVideos(given: VideoDeps) {
  const deps: VideoDeps = { ...given, layoutVerdicts: given.layoutVerdicts ?? new LayoutVerdicts() };
  const list = videoLister(deps.db);
  const retention = registerRetention(deps);
  deps.jobs.register<{ videoId: string }>(RENDER_JOB, (job) => renderJob(deps, job.payload.videoId, job.signal), {
    concurrency: Math.max(1, Math.floor(navigator.hardwareConcurrency / 2)),
    keyConcurrency: 2,
    maxAttempts: 3,
    leaseMs: 60_000,
    timeoutMs: deps.renderTimeoutMs,
    // Its last attempt failed, timed out or died with its instance: the video fails and its credits come back.
    onDead: async (tx, job) => {
      const videoId = (job.payload as { videoId?: unknown } | undefined)?.videoId;
      if (typeof videoId !== "string") return;
      if (await failIn(deps, tx, videoId, "render_failed", `The video could not be rendered after ${job.attempts} attempts: ${customerError(job.error)}`)) {
        deps.logger.warn("video failed: its render job is dead", { video: videoId, job: job.id, error: job.error });
      }
    },
    // Handed back at shutdown: the video waits for a worker again, so it reads queued, not processing.
    onHandedBack: (tx, job) => renderHandedBack(deps, tx, (job.payload as { videoId?: unknown } | undefined)?.videoId),
  });
  return {
    create: (accountId: string, input: NewVideo) => createVideo(deps, accountId, input),
    estimate: (accountId: string, input: NewVideo) => estimateVideo(deps, accountId, input),
    preview: (accountId: string, input: NewVideo) => previewVideo(deps, accountId, input),
    get: (accountId: string, id: string) => getVideo(deps, accountId, id),
    list: (accountId: string, query: VideoListQuery) => list(deps, accountId, query),
    deleteFiles: (accountId: string, id: string) => deleteVideoFiles(deps, accountId, id),
    /** Queues the retention job when VITRIN_VIDEO_RETENTION_DAYS is on; called as the service starts. */
    scheduleRetention: () => retention.schedule(),
    /** Removes scratch folders a dead instance left, older than a render may run (an hour to spare); called at start. */
    sweepScratch: () => sweepScratch(deps, deps.renderTimeoutMs + 60 * 60 * 1000),
    fail: (videoId: string, code: VideoErrorCode, message: string) => failVideo(deps, videoId, code, message),
  };
}

export type Videos = ReturnType<typeof createVideos>;
