// Dekupe (background removal) for products: the job that makes the cut-out, and preview, retry and revert.
import { and, eq } from "drizzle-orm";
import type { Db, Orm } from "../db";
import type { Clock } from "../kernel";
import { newId } from "../kernel";
import { errors } from "../kernel";
import type { Logger } from "../kernel";
import type { BackgroundRemovalPlugin, StoragePlugin } from "../plugins";
import { DEKUPE_JOB, dekupeJson, productJson, type JobQueue, type ProductRow } from "./index";

export type DekupeDeps = {
  db: Db;
  clock: Clock;
  storage: StoragePlugin;
  removal: BackgroundRemovalPlugin;
  jobs: JobQueue;
  logger: Logger;
  /** Told each attempt's outcome and how long it took from the job's start (metrics). */
  observe?: (outcome: "ready" | "failed", seconds: number) => void;
};

export type DekupeJobPayload = { productId: string };

/** How many times the job starts over when the product's image is replaced while it works. */
const MAX_RESTARTS = 3;

export function createDekupe(deps: DekupeDeps) {
  const { db, clock, storage, removal, jobs, logger } = deps;
  const { products } = db.schema;
  const scope = (accountId: string, id: string) => and(eq(products.accountId, accountId), eq(products.id, id));

  async function load(id: string): Promise<ProductRow | null> {
    const [row] = await db.read.select().from(products).where(eq(products.id, id)).limit(1);
    return row ?? null;
  }

  async function deleteKeys(keys: (string | null)[]) {
    for (const key of keys) {
      if (!key) continue;
      await storage.delete(key).catch((e) => logger.warn("could not delete stored file", { key, err: e }));
    }
  }

  /** One cut-out attempt for the product's current image; returns false when the image changed meanwhile. */
  async function attempt(row: ProductRow, signal: AbortSignal): Promise<boolean> {
    const started = clock.now();
    const file = await storage.get(row.originalKey);
    if (!file) {
      await markFailed(row, "The original image is missing from storage.", started);
      return true;
    }
    const source = new Uint8Array(await file.body.arrayBuffer());
    let cut;
    const t0 = performance.now();
    try {
      cut = await removal.remove({ image: source, attempt: row.dekupeAttempts, signal });
    } catch (e) {
      if (signal.aborted) throw e;
      await markFailed(row, `Background removal failed: ${(e as Error).message}`, started);
      return true;
    }
    const cutoutMs = Math.round(performance.now() - t0);
    const suffix = newId("file").slice(5);
    const cutoutKey = `products/${row.id}/cutout-${suffix}.png`;
    const maskKey = `products/${row.id}/mask-${suffix}.png`;
    await storage.put(cutoutKey, cut.png, "image/png");
    await storage.put(maskKey, cut.mask, "image/png");
    const at = clock.now();
    const outcome = await db.tx(async (tx) => {
      const [current] = await tx.select().from(products).where(eq(products.id, row.id)).limit(1);
      if (!current) return "gone" as const;
      if (current.originalKey !== row.originalKey) return "changed" as const;
      if (current.dekupeStatus !== "processing" || current.dekupeAttempts !== row.dekupeAttempts) return "stale" as const;
      await tx
        .update(products)
        .set({
          imageKey: cutoutKey,
          imageType: "image/png",
          imageWidth: cut.width,
          imageHeight: cut.height,
          dekupeStatus: "ready",
          dekupePreviewKey: cutoutKey,
          dekupeMaskKey: maskKey,
          dekupeBox: JSON.stringify(cut.box),
          // total_ms: job start to ready; cutout_ms: the plugin's call, broken down further when the plugin says how.
          dekupeTimings: JSON.stringify({ total_ms: at - started, cutout_ms: cutoutMs, ...cut.timings, variant: cut.variant }),
          dekupeError: null,
          dekupeUpdatedAt: at,
          updatedAt: at,
        })
        .where(eq(products.id, row.id));
      return "ready" as const;
    });
    if (outcome !== "ready") {
      await deleteKeys([cutoutKey, maskKey]);
      return outcome !== "changed";
    }
    deps.observe?.("ready", (clock.now() - started) / 1000);
    // The previous attempt's files are no longer referenced by the row.
    const previous = [row.dekupePreviewKey, row.dekupeMaskKey].filter((k) => k !== row.originalKey);
    await deleteKeys(previous);
    return true;
  }

  async function markFailed(row: ProductRow, message: string, started?: number) {
    const at = clock.now();
    if (started !== undefined) deps.observe?.("failed", (at - started) / 1000);
    await db.tx((tx) =>
      tx
        .update(products)
        .set({ dekupeStatus: "failed", dekupeError: message, dekupeUpdatedAt: at, updatedAt: at })
        .where(
          and(
            eq(products.id, row.id),
            eq(products.originalKey, row.originalKey),
            eq(products.dekupeAttempts, row.dekupeAttempts),
            eq(products.dekupeStatus, "processing"),
          ),
        ),
    );
  }

  return {
    /** The job handler: idempotent, since a job may run again after a crash. */
    async run(payload: DekupeJobPayload, signal: AbortSignal): Promise<void> {
      for (let i = 0; i < MAX_RESTARTS; i++) {
        const row = await load(payload.productId);
        if (!row || row.dekupeStatus !== "processing") return;
        if (await attempt(row, signal)) return;
      }
      const row = await load(payload.productId);
      if (row && row.dekupeStatus === "processing") await markFailed(row, "The image kept changing while it was being cleaned.");
    },

    /**
     * The dekupe job went dead (every attempt failed, or each died with its instance): the cut-out is marked failed in
     * the same transaction, so the product stops saying "processing" and a video waiting on it goes ahead with the photo.
     */
    async onDead(tx: Orm, productId: string, error: string): Promise<void> {
      const at = clock.now();
      await tx
        .update(products)
        .set({ dekupeStatus: "failed", dekupeError: `Background removal did not finish: ${error}`, dekupeUpdatedAt: at, updatedAt: at })
        .where(and(eq(products.id, productId), eq(products.dekupeStatus, "processing")));
    },

    async preview(accountId: string, id: string) {
      const [row] = await db.read.select().from(products).where(scope(accountId, id)).limit(1);
      if (!row) throw errors.notFound("product");
      return {
        product_id: row.id,
        object: "dekupe",
        ...dekupeJson(row, storage),
        image_url: storage.url(row.imageKey),
        original_image_url: storage.url(row.originalKey),
      };
    },

    async retry(accountId: string, id: string) {
      const at = clock.now();
      const row = await db.tx(async (tx) => {
        const [current] = await tx.select().from(products).where(scope(accountId, id)).limit(1);
        if (!current) throw errors.notFound("product");
        if (current.dekupeStatus === "processing") {
          throw errors.conflict("A background removal is already running for this product.", { dekupe_status: "processing" });
        }
        if (current.dekupeRetriesLeft <= 0) {
          throw errors.conflict("All 3 dekupe retries are used up; revert to the original image or upload a new one.", {
            retries_left: 0,
          });
        }
        const [updated] = await tx
          .update(products)
          .set({
            dekupeEnabled: true,
            dekupeStatus: "processing",
            dekupeAttempts: current.dekupeAttempts + 1,
            dekupeRetriesLeft: current.dekupeRetriesLeft - 1,
            dekupeError: null,
            dekupeUpdatedAt: at,
            updatedAt: at,
          })
          .where(eq(products.id, id))
          .returning();
        await jobs.enqueue(tx, DEKUPE_JOB, { productId: id }, { dedupeKey: `dekupe:${id}` });
        return updated;
      });
      return { product_id: row.id, object: "dekupe", ...dekupeJson(row, storage) };
    },

    async revert(accountId: string, id: string) {
      const at = clock.now();
      const row = await db.tx(async (tx) => {
        const [current] = await tx.select().from(products).where(scope(accountId, id)).limit(1);
        if (!current) throw errors.notFound("product");
        const [updated] = await tx
          .update(products)
          .set({
            imageKey: current.originalKey,
            imageType: current.originalType,
            imageWidth: current.originalWidth,
            imageHeight: current.originalHeight,
            dekupeEnabled: false,
            dekupeStatus: "off",
            dekupeUpdatedAt: at,
            updatedAt: at,
          })
          .where(eq(products.id, id))
          .returning();
        return updated;
      });
      return productJson(row, storage);
    },
  };
}

export type Dekupe = ReturnType<typeof createDekupe>;
