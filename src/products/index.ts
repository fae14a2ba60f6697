// The product catalog: create, read, list, update and delete products with safely ingested images, the
// 5-per-account limit, and the dekupe (background removal) state each product carries.
import { and, count, eq } from "drizzle-orm";
import type { Db, Orm } from "../db";
import type { Clock } from "../kernel";
import type { products } from "../db/schema";
import { iso, newId } from "../kernel";
import { createPager, type PageQuery } from "../db/pagination";
import { errors } from "../kernel";
import type { Logger } from "../kernel";
import type { StoragePlugin } from "../plugins";
import { ingestImage, type IngestedImage } from "./image";

export const MAX_PRODUCTS = 5;
export const DEKUPE_RETRIES = 3;
export const DEKUPE_JOB = "dekupe";

export type ProductRow = typeof products.$inferSelect;
export type DekupeStatus = "processing" | "ready" | "failed" | "off";

export type JobQueue = {
  enqueue(
    tx: Orm,
    kind: string,
    payload: Record<string, unknown>,
    opts?: { dedupeKey?: string; concurrencyKey?: string; priority?: number },
  ): Promise<{ id: string }>;
};

export type ProductDeps = {
  db: Db;
  clock: Clock;
  storage: StoragePlugin;
  jobs: JobQueue;
  logger: Logger;
  image: { allowPrivateNetworks: boolean; timeoutMs: number; resolve?: (host: string) => Promise<string[]> };
};

export type NewProduct = { name: string; description?: string; image_url: string; dekupe?: boolean };
export type ProductPatch = { name?: string; description?: string | null; image_url?: string };

export function productJson(row: ProductRow, storage: StoragePlugin) {
  return {
    id: row.id,
    object: "product",
    name: row.name,
    description: row.description,
    image_url: storage.url(row.imageKey),
    original_image_url: storage.url(row.originalKey),
    dekupe: dekupeJson(row, storage),
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

function fileKey(productId: string, kind: string, ext: string): string {
  return `products/${productId}/${kind}-${newId("file").slice(5)}.${ext}`;
}

/** Keys a product row points at, for deleting its files. */
export function productFileKeys(row: ProductRow): string[] {
  return [...new Set([row.originalKey, row.imageKey, row.dekupePreviewKey, row.dekupeMaskKey].filter((k): k is string => !!k))];
}

export function createProducts(deps: ProductDeps) {
  const { db, clock, storage, jobs, logger } = deps;
  const { products } = db.schema;
  const scope = (accountId: string, id: string) => and(eq(products.accountId, accountId), eq(products.id, id));
  const page = createPager<ProductRow>(db.read, products, [products.accountId], "product");

  async function countFor(orm: Orm, accountId: string): Promise<number> {
    const [row] = await orm.select({ n: count() }).from(products).where(eq(products.accountId, accountId));
    return row?.n ?? 0;
  }

  async function ingest(source: string): Promise<IngestedImage> {
    return ingestImage(source, {
      allowPrivateNetworks: deps.image.allowPrivateNetworks,
      timeoutMs: deps.image.timeoutMs,
      resolve: deps.image.resolve,
    });
  }

  async function removeFiles(keys: string[]) {
    for (const key of keys) {
      try {
        await storage.delete(key);
      } catch (e) {
        logger.warn("could not delete stored file", { key, err: e });
      }
    }
  }

  function sourceLabel(source: string): string {
    // A data: URL can be megabytes; keep only what it was.
    return source.startsWith("data:") ? source.slice(0, source.indexOf(",") + 1 || 40).slice(0, 100) : source;
  }

  /**
   * One pending dekupe job per product: the job cleans whatever image the product has when it runs, and
   * starts over if the image changed underneath it, so a second job would only repeat the work.
   */
  async function enqueueDekupe(tx: Orm, productId: string) {
    await jobs.enqueue(tx, DEKUPE_JOB, { productId }, { dedupeKey: `dekupe:${productId}` });
  }

  return {
    async list(accountId: string, query: PageQuery) {
      // Clients poll lists; the cache holds until the next commit anywhere.
      const key = `products:${accountId}:${query.limit ?? ""}:${query.starting_after ?? ""}:${query.ending_before ?? ""}`;
      return db.cached(key, async () => {
        const found = await page([accountId], query);
        return { data: found.data.map((r) => productJson(r, storage)), has_more: found.has_more };
      });
    },

    async getRow(accountId: string, id: string): Promise<ProductRow> {
      const [row] = await db.read.select().from(products).where(scope(accountId, id)).limit(1);
      if (!row) throw errors.notFound("product");
      return row;
    },

    async get(accountId: string, id: string) {
      return productJson(await this.getRow(accountId, id), storage);
    },

    async create(accountId: string, input: NewProduct) {
      // Fail fast before fetching anything; the authoritative check is repeated inside the transaction.
      const before = await countFor(db.read, accountId);
      if (before >= MAX_PRODUCTS) throw errors.productLimit(before, MAX_PRODUCTS);

      const image = await ingest(input.image_url);
      const id = newId("prod");
      const originalKey = fileKey(id, "original", image.ext);
      await storage.put(originalKey, image.bytes, image.contentType);
      const dekupe = input.dekupe ?? true;
      const at = clock.now();
      try {
        const row = await db.tx(async (tx) => {
          const current = await countFor(tx, accountId);
          if (current >= MAX_PRODUCTS) throw errors.productLimit(current, MAX_PRODUCTS);
          const [inserted] = await tx
            .insert(products)
            .values({
              id,
              accountId,
              name: input.name,
              description: input.description ?? null,
              imageKey: originalKey,
              imageType: image.contentType,
              imageWidth: image.width,
              imageHeight: image.height,
              originalKey,
              originalType: image.contentType,
              originalWidth: image.width,
              originalHeight: image.height,
              originalSize: image.size,
              originalSha256: image.sha256,
              originalSource: sourceLabel(input.image_url),
              dekupeEnabled: dekupe,
              dekupeStatus: dekupe ? "processing" : "off",
              dekupeAttempts: dekupe ? 1 : 0,
              dekupeRetriesLeft: DEKUPE_RETRIES,
              dekupeUpdatedAt: dekupe ? at : null,
              createdAt: at,
              updatedAt: at,
            })
            .returning();
          if (dekupe) await enqueueDekupe(tx, id);
          return inserted;
        });
        return productJson(row, storage);
      } catch (e) {
        await removeFiles([originalKey]);
        throw e;
      }
    },

    async update(accountId: string, id: string, patch: ProductPatch) {
      // 404 before fetching anything for a product that is not there.
      await this.getRow(accountId, id);
      const image = patch.image_url !== undefined ? await ingest(patch.image_url) : null;
      const newKey = image ? fileKey(id, "original", image.ext) : null;
      if (image && newKey) await storage.put(newKey, image.bytes, image.contentType);
      const at = clock.now();
      let replaced: ProductRow | null = null;
      try {
        const row = await db.tx(async (tx) => {
          const [current] = await tx.select().from(products).where(scope(accountId, id)).limit(1);
          if (!current) throw errors.notFound("product");
          const set: Partial<ProductRow> = { updatedAt: at };
          if (patch.name !== undefined) set.name = patch.name;
          if (patch.description !== undefined) set.description = patch.description;
          if (image && newKey) {
            replaced = current;
            Object.assign(set, {
              imageKey: newKey,
              imageType: image.contentType,
              imageWidth: image.width,
              imageHeight: image.height,
              originalKey: newKey,
              originalType: image.contentType,
              originalWidth: image.width,
              originalHeight: image.height,
              originalSize: image.size,
              originalSha256: image.sha256,
              originalSource: sourceLabel(patch.image_url!),
              dekupePreviewKey: null,
              dekupeMaskKey: null,
              dekupeBox: null,
              dekupeTimings: null,
              dekupeError: null,
              dekupeRetriesLeft: DEKUPE_RETRIES,
              dekupeAttempts: current.dekupeEnabled ? 1 : 0,
              dekupeStatus: current.dekupeEnabled ? "processing" : "off",
              dekupeUpdatedAt: at,
            } satisfies Partial<ProductRow>);
          }
          const [updated] = await tx.update(products).set(set).where(eq(products.id, id)).returning();
          if (image && current.dekupeEnabled) await enqueueDekupe(tx, id);
          return updated;
        });
        if (replaced) await removeFiles(productFileKeys(replaced));
        return productJson(row, storage);
      } catch (e) {
        if (newKey) await removeFiles([newKey]);
        throw e;
      }
    },

    async delete(accountId: string, id: string) {
      const removed = await db.tx(async (tx) => {
        const rows = await tx.delete(products).where(scope(accountId, id)).returning();
        if (rows.length === 0) throw errors.notFound("product");
        return rows[0];
      });
      await removeFiles(productFileKeys(removed));
      return { id, object: "product", deleted: true };
    },
  };
}

export type Products = ReturnType<typeof createProducts>;
