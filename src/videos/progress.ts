// A render's progress on its way to the database, thinned out so it never holds up the renderer.
import { and, eq } from "drizzle-orm";
import type { VideoDeps } from "./types";

/** Progress goes to the database at most every 5 points or second, in order, without holding up ffmpeg. */
export function progressWriter(deps: Pick<VideoDeps, "db" | "clock" | "logger">, videoId: string) {
  const { db, clock, logger } = deps;
  const { videos } = db.schema;
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
      chain = chain
        .then(() =>
          db.tx((tx) =>
            tx.update(videos).set({ progress: p, updatedAt: clock.now() }).where(and(eq(videos.id, videoId), eq(videos.status, "processing"))),
          ),
        )
        .catch((e) => logger.warn("could not record progress", { video: videoId, err: e }));
    },
    done: () => chain,
  };
}
