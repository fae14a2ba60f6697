// What an account does with a product's cut-out: look at it, try again (3 retries), or go back to the original.
import { eq } from "drizzle-orm";
import type { Orm } from "../db";
import { errors } from "../kernel";
import { clearAccepted } from "./dekupe-attempts";
import { checkHint, type DekupeHint } from "./dekupe-hint";
import type { DekupeCrop } from "./dekupe-result";
import { dekupeJson, productJson } from "./json";
import { enqueueDekupe, productScope } from "./rows";
import type { DekupeDeps, ProductRow } from "./types";

export async function previewDekupe(deps: DekupeDeps, accountId: string, id: string) {
  const { db, storage } = deps;
  const [row] = await db.read.select().from(db.schema.products).where(productScope(deps.db, accountId, id)).limit(1);
  if (!row) throw errors.notFound("product");
  return {
    product_id: row.id,
    object: "dekupe",
    ...dekupeJson(row, storage),
    image_url: storage.url(row.imageKey),
    original_image_url: storage.url(row.originalKey),
  };
}

/**
 * Changes an account's product in one transaction: `change` reads the current row (and may refuse it with an error)
 * and gives the new columns; `then` runs in the same transaction afterwards.
 */
async function changeProduct(
  deps: DekupeDeps,
  accountId: string,
  id: string,
  change: (current: ProductRow, at: number) => Partial<ProductRow>,
  then?: (tx: Orm) => Promise<void>,
): Promise<ProductRow> {
  const { products } = deps.db.schema;
  const at = deps.clock.now();
  return deps.db.tx(async (tx) => {
    const [current] = await tx.select().from(products).where(productScope(deps.db, accountId, id)).limit(1);
    if (!current) throw errors.notFound("product");
    const [updated] = await tx.update(products).set(change(current, at)).where(eq(products.id, id)).returning();
    await then?.(tx);
    return updated;
  });
}

/** A new attempt; with a hint it cuts out the object the hint names (checked against the photo first). */
export async function retryDekupe(deps: DekupeDeps, accountId: string, id: string, crop?: DekupeCrop, hint?: DekupeHint) {
  let checked: DekupeHint | undefined;
  const retry = (current: ProductRow, at: number): Partial<ProductRow> => {
    if (hint) checked = checkHint(hint, current.originalWidth, current.originalHeight);
    if (current.dekupeStatus === "processing") {
      throw errors.conflict("A background removal is already running for this product.", { dekupe_status: "processing" });
    }
    if (current.dekupeRetriesLeft <= 0) {
      throw errors.conflict("All 3 dekupe retries are used up; revert to the original image or upload a new one.", {
        retries_left: 0,
      });
    }
    return {
      dekupeEnabled: true,
      dekupeStatus: "processing",
      dekupeAttempts: current.dekupeAttempts + 1,
      // The first cut-out of a photo (a product made with dekupe off) is not a retry: three remain after it.
      dekupeRetriesLeft: current.dekupeAttempts === 0 ? current.dekupeRetriesLeft : current.dekupeRetriesLeft - 1,
      dekupeError: null,
      dekupeErrorCode: null,
      dekupeUpdatedAt: at,
      updatedAt: at,
    };
  };
  const row = await changeProduct(deps, accountId, id, retry, (tx) => enqueueDekupe(deps, tx, id, crop, checked));
  return { product_id: row.id, object: "dekupe", ...dekupeJson(row, deps.storage) };
}

/**
 * Back to the photo; the accepted attempt is forgotten, so the next retry's cut-out is used again. Not while an
 * attempt runs (as accept): it has used a retry, and its cut-out, once made, is kept and listed like every other.
 */
export async function revertDekupe(deps: DekupeDeps, accountId: string, id: string) {
  const back = (current: ProductRow, at: number): Partial<ProductRow> => {
    if (current.dekupeStatus === "processing") {
      throw errors.conflict("A background removal is running for this product; revert once it has finished.", { dekupe_status: "processing" });
    }
    return backToPhoto(current, at);
  };
  const row = await changeProduct(deps, accountId, id, back, (tx) => clearAccepted(deps.db, tx, id));
  return productJson(row, deps.storage);
}

function backToPhoto(current: ProductRow, at: number): Partial<ProductRow> {
  return {
    imageKey: current.originalKey,
    imageType: current.originalType,
    imageWidth: current.originalWidth,
    imageHeight: current.originalHeight,
    dekupeEnabled: false,
    dekupeStatus: "off",
    // Off is no failure: a failed attempt's reason stays listed with the attempt.
    dekupeError: null,
    dekupeErrorCode: null,
    dekupeUpdatedAt: at,
    updatedAt: at,
  };
}
