// How the products folder finds an account's product, handles the stored files a product row points at, and
// queues a product's dekupe job.
import { and, eq } from "drizzle-orm";
import type { Db, Orm } from "../db";
import { newId, type Logger } from "../kernel";
import type { StoragePlugin } from "../plugins";
import type { DekupeHint } from "./dekupe-hint";
import type { DekupeCrop } from "./dekupe-result";
import { DEKUPE_JOB, type JobQueue, type ProductRow } from "./types";

/** The WHERE clause for product `id` of account `accountId` (another account's product is not there). */
export function productScope(db: Db, accountId: string, id: string) {
  const { products } = db.schema;
  return and(eq(products.accountId, accountId), eq(products.id, id));
}

/** A fresh storage key for one of a product's files (a new name each time, so a replaced file is never served stale). */
export function fileKey(productId: string, kind: string, ext: string): string {
  return `products/${productId}/${kind}-${newId("file").slice(5)}.${ext}`;
}

/** Keys a product row points at, for deleting its files. */
export function productFileKeys(row: ProductRow): string[] {
  return [...new Set([row.originalKey, row.imageKey, row.dekupePreviewKey, row.dekupeMaskKey].filter((k): k is string => !!k))];
}

/** Deletes stored files, logging (not throwing) what cannot be deleted: the rows no longer point at them. */
export async function removeFiles(deps: { storage: StoragePlugin; logger: Logger }, keys: (string | null)[]) {
  for (const key of keys) {
    if (!key) continue;
    try {
      await deps.storage.delete(key);
    } catch (e) {
      deps.logger.warn("could not delete stored file", { key, err: e });
    }
  }
}

/**
 * One queued dekupe job per product: the job cleans whatever image the product has when it runs, and starts over if
 * the image changed underneath it, so a second queued job would only repeat the work. A job that is already running
 * does not absorb the enqueue (a debounce key, not a dedupe key): a retry accepted between the running job's
 * "ready" and its end would otherwise be folded into a job that never looks at the product again, leaving it
 * "processing" for good with the retry's hint and crop lost.
 */
export async function enqueueDekupe(deps: { jobs: JobQueue }, tx: Orm, productId: string, crop?: DekupeCrop, hint?: DekupeHint) {
  const payload = { productId, ...(crop ? { crop } : {}), ...(hint ? { hint } : {}) };
  await deps.jobs.enqueue(tx, DEKUPE_JOB, payload, { debounceKey: `dekupe:${productId}` });
}
