// A video's files leave storage while its record stays: DELETE /v1/videos/:id for one finished video, and the hourly
// retention job (VITRIN_VIDEO_RETENTION_DAYS) for every video finished longer ago. Ledger rows are never touched.
import { and, asc, eq, isNull, lt } from "drizzle-orm";
import type { Orm } from "../db";
import { errors } from "../kernel";
import { loadVideo } from "./failure";
import { videoJson } from "./json";
import type { VideoDeps, VideoRow } from "./types";

export const RETENTION_JOB = "video.retention";
/** How often old files are looked for: retention is counted in days, so an hour late is no one's loss. */
export const RETENTION_EVERY_MS = 60 * 60 * 1000;
/** Videos handled per query; a run keeps going batch by batch until none is left. */
const RETENTION_BATCH = 100;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Collapses every queued retention run into one (a running one queues the next itself). */
const DEBOUNCE_KEY = "video-retention";

/**
 * Deletes the row's stored files, then records that they are gone (files first: a delete that fails leaves the row as
 * it was, so a retry finds the files again). Deleting a missing file is no error, which makes this idempotent.
 */
async function dropFiles(deps: VideoDeps, row: VideoRow): Promise<VideoRow> {
  for (const key of [row.videoKey, row.thumbnailKey]) if (key) await deps.storage.delete(key);
  const { videos } = deps.db.schema;
  const at = deps.clock.now();
  const [updated] = await deps.db.tx((tx) =>
    tx
      .update(videos)
      .set({ videoKey: null, thumbnailKey: null, filesDeletedAt: at, updatedAt: at })
      .where(and(eq(videos.id, row.id), isNull(videos.filesDeletedAt)))
      .returning(),
  );
  // Nothing updated: another request or the retention job got there first; its answer stands.
  return updated ?? (await loadVideo(deps, deps.db.read, row.id)) ?? row;
}

/**
 * DELETE /v1/videos/:id: a finished video's files are deleted and the video is answered with `files_deleted_at` set
 * and null URLs; again, the same answer. A video still queued or rendering is a 409: its files do not exist yet.
 */
export async function deleteVideoFiles(deps: VideoDeps, accountId: string, id: string) {
  const row = await loadVideo(deps, deps.db.read, id);
  if (!row || row.accountId !== accountId) throw errors.notFound("video");
  if (row.status === "queued" || row.status === "processing") {
    throw errors.conflict(`The video is ${row.status}; its files can be deleted once it has completed or failed.`, { video_status: row.status });
  }
  // Its files are gone: no links, so no downloads to name.
  return videoJson(row.filesDeletedAt === null ? await dropFiles(deps, row) : row, deps, null);
}

/** One batch of completed videos past the retention age whose files are still there, oldest first. */
function expired(deps: VideoDeps, cutoff: number) {
  const { videos } = deps.db.schema;
  return deps.db.read
    .select()
    .from(videos)
    .where(and(eq(videos.status, "completed"), isNull(videos.filesDeletedAt), lt(videos.completedAt, cutoff)))
    .orderBy(asc(videos.completedAt))
    .limit(RETENTION_BATCH);
}

/** Registers the retention job; schedule() makes sure a run is queued when retention is on (called at start). */
export function registerRetention(deps: VideoDeps) {
  const { jobs, clock, db } = deps;
  const days = deps.config.videoRetentionDays;
  const queueNext = (tx: Orm, runAt: number) =>
    jobs.enqueue(tx, RETENTION_JOB, {}, { runAt, debounceKey: DEBOUNCE_KEY }).then(() => undefined);

  jobs.register(
    RETENTION_JOB,
    async (job) => {
      // Turned off since this run was queued: the chain ends here.
      if (days <= 0) return;
      const cutoff = clock.now() - days * DAY_MS;
      let removed = 0;
      for (;;) {
        const batch = await expired(deps, cutoff);
        for (const row of batch) {
          if (job.signal.aborted) return;
          await dropFiles(deps, row);
          removed++;
        }
        if (batch.length < RETENTION_BATCH) break;
      }
      if (removed > 0) job.log.info("old video files deleted", { count: removed, retention_days: days });
      job.deferWrite((tx) => queueNext(tx, clock.now() + RETENTION_EVERY_MS));
    },
    {
      maxAttempts: 5,
      // A run that kept failing (storage down, say) still queues the next, or retention would stop until a restart.
      onDead: (tx) => (days > 0 ? queueNext(tx, clock.now() + RETENTION_EVERY_MS) : Promise.resolve()),
    },
  );

  return {
    /** Queues a run within the hour when retention is on (one already queued keeps the earlier time). */
    schedule(): Promise<void> {
      if (days <= 0) return Promise.resolve();
      return db.tx((tx) => queueNext(tx, clock.now() + RETENTION_EVERY_MS));
    },
  };
}
