// Every cut-out attempt of a product stays: recorded by the job, listed for the account, and one of them accepted as
// the cut-out videos use (the latest successful one until the account accepts another).
import { and, asc, eq, isNotNull } from "drizzle-orm";
import type { Db, Orm, schema } from "../db";
import { errors, iso, newId } from "../kernel";
import type { Box, StoragePlugin } from "../plugins";
import type { DekupeErrorCode, DekupeFailure } from "./dekupe-errors";
import type { DekupeHint } from "./dekupe-hint";
import type { CutoutResult, DekupeCrop } from "./dekupe-result";
import { productJson } from "./json";
import { productScope } from "./rows";
import type { DekupeDeps, ProductRow } from "./types";

export type AttemptRow = typeof schema.dekupeAttempts.$inferSelect;

type Outcome =
  | { status: "ready"; result: CutoutResult; previewKey: string; maskKey: string; method: string; hint?: DekupeHint }
  | { status: "failed"; failure: DekupeFailure; hint?: DekupeHint };

/** Records attempt number `row.dekupeAttempts` of the product's current photo, in the transaction that settles it. */
export async function recordAttempt(db: Db, tx: Orm, row: ProductRow, crop: DekupeCrop, outcome: Outcome, at: number) {
  const base = { id: `dka_${newId("file").slice(5)}`, productId: row.id, number: row.dekupeAttempts, originalKey: row.originalKey, crop, createdAt: at };
  // The hint rides in the box column's JSON beside the box (no column of its own): {x, y, width, height, hint}.
  const hint = outcome.hint ? { hint: outcome.hint } : null;
  if (outcome.status === "failed") {
    await tx.insert(db.schema.dekupeAttempts).values({ ...base, status: "failed", error: outcome.failure.message, errorCode: outcome.failure.code, box: hint ? JSON.stringify(hint) : null });
    return;
  }
  const { cut, sourceBox, warnings } = outcome.result;
  await tx.insert(db.schema.dekupeAttempts).values({
    ...base,
    status: "ready",
    method: outcome.method,
    previewKey: outcome.previewKey,
    maskKey: outcome.maskKey,
    width: cut.width,
    height: cut.height,
    box: JSON.stringify({ ...cut.box, ...hint }),
    sourceBox: JSON.stringify(sourceBox),
    warnings: JSON.stringify(warnings),
  });
}

/** Whether the account accepted an attempt of the product's current photo (then a new attempt does not replace it). */
export async function hasAccepted(db: Db, tx: Orm, row: ProductRow): Promise<boolean> {
  const { dekupeAttempts: a } = db.schema;
  const [hit] = await tx
    .select({ id: a.id })
    .from(a)
    .where(and(eq(a.productId, row.id), eq(a.originalKey, row.originalKey), isNotNull(a.acceptedAt)))
    .limit(1);
  return !!hit;
}

/** Deletes the product's attempts (its photo was replaced, or it is going) and gives their files' keys to delete. */
export async function dropAttempts(db: Db, tx: Orm, productId: string): Promise<string[]> {
  const { dekupeAttempts: a } = db.schema;
  const gone = await tx.delete(a).where(eq(a.productId, productId)).returning({ previewKey: a.previewKey, maskKey: a.maskKey });
  return gone.flatMap((g) => [g.previewKey, g.maskKey]).filter((k): k is string => !!k);
}

/** The box column: the cut-out's box (null for a failed attempt) and the retry's hint (null without one). */
function boxAndHint(stored: string | null): { box: Box | null; hint: DekupeHint | null } {
  if (!stored) return { box: null, hint: null };
  const { hint, x, y, width, height } = JSON.parse(stored);
  return { box: x === undefined ? null : { x, y, width, height }, hint: hint ?? null };
}

function attemptJson(a: AttemptRow, product: ProductRow, storage: StoragePlugin) {
  return {
    id: a.id,
    object: "dekupe_attempt",
    number: a.number,
    status: a.status as "ready" | "failed",
    method: a.method,
    crop: a.crop as DekupeCrop,
    warnings: JSON.parse(a.warnings) as string[],
    ...boxAndHint(a.box),
    source_box: a.sourceBox ? JSON.parse(a.sourceBox) : null,
    preview_url: a.previewKey ? storage.url(a.previewKey) : null,
    mask_url: a.maskKey ? storage.url(a.maskKey) : null,
    error: a.error,
    error_code: a.errorCode as DekupeErrorCode | null,
    // In use: the product shows this cut-out now (not after a revert or while a photo is still the image).
    in_use: a.previewKey !== null && a.previewKey === product.imageKey,
    accepted: a.acceptedAt !== null,
    created_at: iso(a.createdAt),
  };
}

async function ownProduct(deps: DekupeDeps, tx: Orm, accountId: string, id: string): Promise<ProductRow> {
  const [row] = await tx.select().from(deps.db.schema.products).where(productScope(deps.db, accountId, id)).limit(1);
  if (!row) throw errors.notFound("product");
  return row;
}

/** The attempts of the product's current photo, oldest first. */
export async function listAttempts(deps: DekupeDeps, accountId: string, id: string) {
  const { dekupeAttempts: a } = deps.db.schema;
  const product = await ownProduct(deps, deps.db.read, accountId, id);
  const rows = await deps.db.read
    .select()
    .from(a)
    .where(and(eq(a.productId, id), eq(a.originalKey, product.originalKey)))
    .orderBy(asc(a.number), asc(a.createdAt));
  return { data: rows.map((r) => attemptJson(r, product, deps.storage)), has_more: false };
}

/** Makes a successful attempt of the current photo the product's cut-out, and remembers that the account chose it. */
export async function acceptAttempt(deps: DekupeDeps, accountId: string, id: string, attemptId: string) {
  const { products, dekupeAttempts: a } = deps.db.schema;
  const at = deps.clock.now();
  const row = await deps.db.tx(async (tx) => {
    const product = await ownProduct(deps, tx, accountId, id);
    const [attempt] = await tx.select().from(a).where(and(eq(a.id, attemptId), eq(a.productId, id))).limit(1);
    if (!attempt) throw errors.notFound("dekupe attempt");
    if (attempt.originalKey !== product.originalKey) {
      throw errors.conflict("This attempt cut out an earlier image of the product; only attempts of the current image can be accepted.", { attempt_id: attemptId });
    }
    if (attempt.status !== "ready" || !attempt.previewKey) {
      throw errors.conflict("Only a successful attempt can be accepted.", { attempt_id: attemptId, status: attempt.status });
    }
    if (product.dekupeStatus === "processing") {
      throw errors.conflict("A background removal is running for this product; accept once it has finished.", { dekupe_status: "processing" });
    }
    await tx.update(a).set({ acceptedAt: null }).where(eq(a.productId, id));
    await tx.update(a).set({ acceptedAt: at }).where(eq(a.id, attemptId));
    const [updated] = await tx
      .update(products)
      .set({ ...attemptColumns(attempt), dekupeEnabled: true, dekupeStatus: "ready", dekupeError: null, dekupeErrorCode: null, dekupeUpdatedAt: at, updatedAt: at })
      .where(eq(products.id, id))
      .returning();
    return updated;
  });
  return productJson(row, deps.storage);
}

/** The product columns that point at an attempt's cut-out. */
function attemptColumns(attempt: AttemptRow): Partial<ProductRow> {
  const { box } = boxAndHint(attempt.box);
  return {
    imageKey: attempt.previewKey!,
    imageType: "image/png",
    imageWidth: attempt.width!,
    imageHeight: attempt.height!,
    dekupePreviewKey: attempt.previewKey,
    dekupeMaskKey: attempt.maskKey,
    dekupeBox: JSON.stringify({ ...box, source_box: attempt.sourceBox ? JSON.parse(attempt.sourceBox) : null, crop: attempt.crop, warnings: JSON.parse(attempt.warnings) }),
  };
}

/** Forgets which attempt the account accepted (a revert to the photo): the next successful attempt is used again. */
export async function clearAccepted(db: Db, tx: Orm, productId: string) {
  const { dekupeAttempts: a } = db.schema;
  await tx.update(a).set({ acceptedAt: null }).where(eq(a.productId, productId));
}
