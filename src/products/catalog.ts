// The product catalog's requests: list, read, create, update and delete products, with safely ingested images,
// the 5-per-account limit, and a dekupe job queued whenever a product gets a new image to clean.
import { count, eq } from "drizzle-orm";
import { createPager, type Db, type Orm, type PageQuery } from "../db";
import { errors, MAX_IMAGE_BYTES, newId, mergeMetadata, parseMetadata } from "../kernel";
import { ingestImage, type IngestedImage } from "./image";
import { productJson } from "./json";
import { dropAttempts } from "./dekupe-attempts";
import { enqueueDekupe, fileKey, productFileKeys, productScope, removeFiles } from "./rows";
import { DEKUPE_RETRIES, MAX_PRODUCTS, type ImageInput, type NewProduct, type ProductDeps, type ProductPatch, type ProductRow } from "./types";

async function countFor(deps: ProductDeps, orm: Orm, accountId: string): Promise<number> {
  const { products } = deps.db.schema;
  const [row] = await orm.select({ n: count() }).from(products).where(eq(products.accountId, accountId));
  return row?.n ?? 0;
}

/** The image a request gives, by URL or as an uploaded file, vetted; undefined when it gives none. */
async function ingest(deps: ProductDeps, input: ImageInput): Promise<{ image: IngestedImage; label: string } | undefined> {
  const { allowPrivateNetworks, timeoutMs, resolve } = deps.image;
  if (input.image_url !== undefined && input.image !== undefined) {
    throw errors.invalidField("image", "send the image either as a file (image) or by URL (image_url), not both");
  }
  if (input.image !== undefined) {
    // The size is checked before the bytes are copied out (the body cap already bounded what arrived).
    if (input.image.size > MAX_IMAGE_BYTES) throw errors.fileTooLarge(MAX_IMAGE_BYTES, undefined, "image");
    const image = await ingestImage(new Uint8Array(await input.image.arrayBuffer()), { allowPrivateNetworks, field: "image" });
    return { image, label: `upload:${(input.image as File).name ?? ""}`.slice(0, 100) };
  }
  if (input.image_url === undefined) return undefined;
  return { image: await ingestImage(input.image_url, { allowPrivateNetworks, timeoutMs, resolve }), label: sourceLabel(input.image_url) };
}

function sourceLabel(source: string): string {
  // A data: URL can be megabytes; keep only what it was.
  return source.startsWith("data:") ? source.slice(0, source.indexOf(",") + 1 || 40).slice(0, 100) : source;
}

/** The columns that describe a newly ingested image, as the product's shown image and as its original. */
function imageColumns(image: IngestedImage, key: string, label: string) {
  return {
    imageKey: key,
    imageType: image.contentType,
    imageWidth: image.width,
    imageHeight: image.height,
    originalKey: key,
    originalType: image.contentType,
    originalWidth: image.width,
    originalHeight: image.height,
    originalSize: image.size,
    originalSha256: image.sha256,
    originalSource: label,
  } satisfies Partial<ProductRow>;
}

/** The prepared pager over an account's products (built once per instance: preparing costs more than paging). */
export function productPager(db: Db) {
  const { products } = db.schema;
  return createPager<ProductRow>(db.read, products, [products.accountId], "product");
}

export async function listProducts(deps: ProductDeps, page: ReturnType<typeof productPager>, accountId: string, query: PageQuery) {
  // Clients poll lists; the cache holds until the next commit anywhere.
  const key = `products:${accountId}:${query.limit ?? ""}:${query.starting_after ?? ""}:${query.ending_before ?? ""}`;
  return deps.db.cached(key, async () => {
    const found = await page([accountId], query);
    return { data: found.data.map((r) => productJson(r, deps.storage)), has_more: found.has_more };
  });
}

export async function getProductRow(deps: ProductDeps, accountId: string, id: string): Promise<ProductRow> {
  const { products } = deps.db.schema;
  const [row] = await deps.db.read.select().from(products).where(productScope(deps.db, accountId, id)).limit(1);
  if (!row) throw errors.notFound("product");
  return row;
}

export async function createProduct(deps: ProductDeps, accountId: string, input: NewProduct) {
  const { db, storage } = deps;
  const { products } = db.schema;
  // Fail fast before fetching anything; the authoritative check is repeated inside the transaction.
  const before = await countFor(deps, db.read, accountId);
  if (before >= MAX_PRODUCTS) throw errors.productLimit(before, MAX_PRODUCTS);
  const metadata = mergeMetadata({}, input.metadata);

  const ingested = await ingest(deps, input);
  if (!ingested) throw errors.invalidField("image_url", "is required (or upload the file as image in multipart/form-data)");
  const { image, label } = ingested;
  const id = newId("prod");
  const originalKey = fileKey(id, "original", image.ext);
  await storage.put(originalKey, image.bytes, image.contentType);
  const dekupe = input.dekupe ?? true;
  const at = deps.clock.now();
  try {
    const row = await db.tx(async (tx) => {
      const current = await countFor(deps, tx, accountId);
      if (current >= MAX_PRODUCTS) throw errors.productLimit(current, MAX_PRODUCTS);
      const [inserted] = await tx
        .insert(products)
        .values({
          id,
          accountId,
          name: input.name,
          description: input.description ?? null,
          metadata: JSON.stringify(metadata),
          ...imageColumns(image, originalKey, label),
          dekupeEnabled: dekupe,
          dekupeStatus: dekupe ? "processing" : "off",
          dekupeAttempts: dekupe ? 1 : 0,
          dekupeRetriesLeft: DEKUPE_RETRIES,
          dekupeUpdatedAt: dekupe ? at : null,
          createdAt: at,
          updatedAt: at,
        })
        .returning();
      if (dekupe) await enqueueDekupe(deps, tx, id, input.dekupe_crop);
      return inserted;
    });
    return productJson(row, storage);
  } catch (e) {
    await removeFiles(deps, [originalKey]);
    throw e;
  }
}

/** The columns a patch changes on `current`; a new image starts its dekupe over (when dekupe is on). */
type Replacement = { image: IngestedImage; label: string; key: string };

function patchColumns(current: ProductRow, patch: ProductPatch, replacement: Replacement | null, at: number) {
  const set: Partial<ProductRow> = { updatedAt: at };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.description !== undefined) set.description = patch.description;
  // Merged with what the row holds inside the update's transaction, so two patches of different keys both stay.
  if (patch.metadata !== undefined) set.metadata = JSON.stringify(mergeMetadata(parseMetadata(current.metadata), patch.metadata));
  if (replacement) {
    Object.assign(set, {
      ...imageColumns(replacement.image, replacement.key, replacement.label),
      dekupePreviewKey: null,
      dekupeMaskKey: null,
      dekupeBox: null,
      dekupeTimings: null,
      dekupeError: null,
      dekupeErrorCode: null,
      dekupeRetriesLeft: DEKUPE_RETRIES,
      dekupeAttempts: current.dekupeEnabled ? 1 : 0,
      dekupeStatus: current.dekupeEnabled ? "processing" : "off",
      dekupeUpdatedAt: at,
    } satisfies Partial<ProductRow>);
  }
  return set;
}

export async function updateProduct(deps: ProductDeps, accountId: string, id: string, patch: ProductPatch) {
  const { db, storage } = deps;
  const { products } = db.schema;
  // 404 (and a bad metadata 422) before fetching anything for a product that is not there.
  const before = await getProductRow(deps, accountId, id);
  mergeMetadata(parseMetadata(before.metadata), patch.metadata);
  const ingested = await ingest(deps, patch);
  const replacement: Replacement | null = ingested ? { ...ingested, key: fileKey(id, "original", ingested.image.ext) } : null;
  if (replacement) await storage.put(replacement.key, replacement.image.bytes, replacement.image.contentType);
  const at = deps.clock.now();
  let replaced: ProductRow | null = null;
  let attemptKeys: string[] = [];
  try {
    const row = await db.tx(async (tx) => {
      const [current] = await tx.select().from(products).where(productScope(deps.db, accountId, id)).limit(1);
      if (!current) throw errors.notFound("product");
      if (replacement) replaced = current;
      // The old photo's cut-out attempts go with it.
      if (replacement) attemptKeys = await dropAttempts(db, tx, id);
      const [updated] = await tx.update(products).set(patchColumns(current, patch, replacement, at)).where(eq(products.id, id)).returning();
      if (replacement && current.dekupeEnabled) await enqueueDekupe(deps, tx, id);
      return updated;
    });
    if (replaced) await removeFiles(deps, [...new Set([...productFileKeys(replaced), ...attemptKeys])]);
    return productJson(row, storage);
  } catch (e) {
    if (replacement) await removeFiles(deps, [replacement.key]);
    throw e;
  }
}

export async function deleteProduct(deps: ProductDeps, accountId: string, id: string) {
  const { products } = deps.db.schema;
  const { removed, attemptKeys } = await deps.db.tx(async (tx) => {
    const [own] = await tx.select({ id: products.id }).from(products).where(productScope(deps.db, accountId, id)).limit(1);
    if (!own) throw errors.notFound("product");
    const attemptKeys = await dropAttempts(deps.db, tx, id);
    const rows = await tx.delete(products).where(productScope(deps.db, accountId, id)).returning();
    return { removed: rows[0], attemptKeys };
  });
  // Every attempt's files, not only the cut-out in use.
  await removeFiles(deps, [...new Set([...productFileKeys(removed), ...attemptKeys])]);
  return { id, object: "product", deleted: true };
}
