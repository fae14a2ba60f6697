// The dekupe job: one cut-out of the product's current image by the background-removal plugin, saved only if the
// image is still the one it cleaned (else it starts over, a few times at most), and the failure paths.
import { and, eq } from "drizzle-orm";
import type { Orm } from "../db";
import { newId } from "../kernel";
import { customerError } from "../jobs";
import { hasAccepted, recordAttempt } from "./dekupe-attempts";
import { didNotFinish, failureOf, imageChanging, imageMissing, type DekupeFailure } from "./dekupe-errors";
import type { DekupeHint } from "./dekupe-hint";
import { finishCutout, type CutoutResult, type DekupeCrop } from "./dekupe-result";
import { productJson } from "./json";
import { removeFiles } from "./rows";
import type { DekupeDeps, DekupeJobPayload, ProductRow } from "./types";

/** How many times the job starts over when the product's image is replaced while it works. */
const MAX_RESTARTS = 3;

async function loadProduct(deps: DekupeDeps, id: string): Promise<ProductRow | null> {
  const { products } = deps.db.schema;
  const [row] = await deps.db.read.select().from(products).where(eq(products.id, id)).limit(1);
  return row ?? null;
}

/** Tells the account's receivers how a cut-out attempt ended, with the product as it now is. */
async function announce(deps: DekupeDeps, tx: Orm, row: ProductRow | undefined) {
  if (!row) return;
  const event = row.dekupeStatus === "ready" ? "product.dekupe.completed" : "product.dekupe.failed";
  await deps.webhooks.publish(tx, { accountId: row.accountId, event, data: productJson(row, deps.storage) });
}

/** Marks the attempt `row` stands for failed, unless the product has moved on (new image, new attempt, settled). */
async function markFailed(deps: DekupeDeps, row: ProductRow, crop: DekupeCrop, failure: DekupeFailure, started?: number, hint?: DekupeHint) {
  const { products } = deps.db.schema;
  const at = deps.clock.now();
  if (started !== undefined) deps.observe?.("failed", (at - started) / 1000);
  await deps.db.tx(async (tx) => {
    const [failed] = await tx
      .update(products)
      .set({ dekupeStatus: "failed", dekupeError: failure.message, dekupeErrorCode: failure.code, dekupeUpdatedAt: at, updatedAt: at })
      .where(
        and(
          eq(products.id, row.id),
          eq(products.originalKey, row.originalKey),
          eq(products.dekupeAttempts, row.dekupeAttempts),
          eq(products.dekupeStatus, "processing"),
        ),
      )
      .returning();
    if (failed) await recordAttempt(deps.db, tx, row, crop, { status: "failed", failure, hint }, at);
    await announce(deps, tx, failed);
  });
}

type SavedCutout = { result: CutoutResult; crop: DekupeCrop; hint?: DekupeHint; cutoutKey: string; maskKey: string; started: number; cutoutMs: number };

/** Points the product at its stored cut-out if it still waits for this very attempt; says what it found otherwise. */
async function saveCutout(deps: DekupeDeps, row: ProductRow, saved: SavedCutout) {
  const { products } = deps.db.schema;
  const { result, crop, hint, cutoutKey, maskKey, started, cutoutMs } = saved;
  const { cut, sourceBox, warnings } = result;
  const at = deps.clock.now();
  return deps.db.tx(async (tx) => {
    const [current] = await tx.select().from(products).where(eq(products.id, row.id)).limit(1);
    if (!current) return "gone" as const;
    if (current.originalKey !== row.originalKey) return "changed" as const;
    if (current.dekupeStatus !== "processing" || current.dekupeAttempts !== row.dekupeAttempts) return "stale" as const;
    await recordAttempt(deps.db, tx, row, crop, { status: "ready", result, previewKey: cutoutKey, maskKey, method: cut.variant, hint }, at);
    // A cut-out the account accepted stays in use; the new attempt waits in the list to be accepted instead.
    const use = (await hasAccepted(deps.db, tx, current))
      ? {}
      : {
          imageKey: cutoutKey,
          imageType: "image/png",
          imageWidth: cut.width,
          imageHeight: cut.height,
          dekupePreviewKey: cutoutKey,
          dekupeMaskKey: maskKey,
          // The box within the PNG, and beside it the attempt's place in the photo, crop choice and warnings.
          dekupeBox: JSON.stringify({ ...cut.box, source_box: sourceBox, crop, warnings }),
        };
    const [ready] = await tx
      .update(products)
      .set({
        ...use,
        dekupeStatus: "ready",
        // total_ms: job start to ready; cutout_ms: the plugin's call, broken down further when the plugin says how.
        dekupeTimings: JSON.stringify({ total_ms: at - started, cutout_ms: cutoutMs, ...cut.timings, variant: cut.variant }),
        dekupeError: null,
        dekupeErrorCode: null,
        dekupeUpdatedAt: at,
        updatedAt: at,
      })
      .where(eq(products.id, row.id))
      .returning();
    await announce(deps, tx, ready);
    return "ready" as const;
  });
}

/** One cut-out attempt for the product's current image; returns false when the image changed meanwhile. */
async function attempt(deps: DekupeDeps, row: ProductRow, crop: DekupeCrop, hint: DekupeHint | undefined, signal: AbortSignal): Promise<boolean> {
  const { storage } = deps;
  const started = deps.clock.now();
  const file = await storage.get(row.originalKey);
  if (!file) {
    await markFailed(deps, row, crop, imageMissing, started, hint);
    return true;
  }
  const source = new Uint8Array(await file.body.arrayBuffer());
  let result;
  const t0 = performance.now();
  try {
    const removed = await deps.removal.remove({ image: source, attempt: row.dekupeAttempts, ...(hint ? { hint } : {}), signal });
    result = await finishCutout(source, removed, crop, row.originalWidth, row.originalHeight);
  } catch (e) {
    if (signal.aborted) throw e;
    await markFailed(deps, row, crop, failureOf(e), started, hint);
    return true;
  }
  const { cut } = result;
  const cutoutMs = Math.round(performance.now() - t0);
  const suffix = newId("file").slice(5);
  const cutoutKey = `products/${row.id}/cutout-${suffix}.png`;
  const maskKey = `products/${row.id}/mask-${suffix}.png`;
  await storage.put(cutoutKey, cut.png, "image/png");
  await storage.put(maskKey, cut.mask, "image/png");
  const outcome = await saveCutout(deps, row, { result, crop, hint, cutoutKey, maskKey, started, cutoutMs });
  if (outcome !== "ready") {
    await removeFiles(deps, [cutoutKey, maskKey]);
    return outcome !== "changed";
  }
  // The previous attempts' files stay: each attempt keeps its own, listed until the product or its photo goes.
  deps.observe?.("ready", (deps.clock.now() - started) / 1000);
  return true;
}

/** The job handler: idempotent, since a job may run again after a crash. */
export async function runDekupe(deps: DekupeDeps, payload: DekupeJobPayload, signal: AbortSignal): Promise<void> {
  for (let i = 0; i < MAX_RESTARTS; i++) {
    const row = await loadProduct(deps, payload.productId);
    if (!row || row.dekupeStatus !== "processing") return;
    if (await attempt(deps, row, payload.crop ?? "subject", payload.hint, signal)) return;
  }
  const row = await loadProduct(deps, payload.productId);
  if (row && row.dekupeStatus === "processing") await markFailed(deps, row, payload.crop ?? "subject", imageChanging, undefined, payload.hint);
}

/**
 * The dekupe job went dead (every attempt failed, or each died with its instance): the cut-out is marked failed in
 * the same transaction, so the product stops saying "processing" and a video waiting on it goes ahead with the photo;
 * the attempt is listed as failed, with the crop and hint it was asked with, like one that failed while running.
 */
export async function dekupeDead(deps: DekupeDeps, tx: Orm, payload: DekupeJobPayload, error: string): Promise<void> {
  const { products } = deps.db.schema;
  const at = deps.clock.now();
  const failure = didNotFinish(customerError(error));
  const [failed] = await tx
    .update(products)
    .set({ dekupeStatus: "failed", dekupeError: failure.message, dekupeErrorCode: failure.code, dekupeUpdatedAt: at, updatedAt: at })
    .where(and(eq(products.id, payload.productId), eq(products.dekupeStatus, "processing")))
    .returning();
  if (failed) await recordAttempt(deps.db, tx, failed, payload.crop ?? "subject", { status: "failed", failure, hint: payload.hint }, at);
  await announce(deps, tx, failed);
}
