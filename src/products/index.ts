// The product catalog: create, read, list, update and delete products with safely ingested images, the
// 5-per-account limit, and the dekupe (background removal) state each product carries. This face assembles the
// named functions of catalog.ts over one dependencies object, and names what other folders may use.
import type { PageQuery } from "../db";
import { createProduct, deleteProduct, getProductRow, listProducts, productPager, updateProduct } from "./catalog";
import { productJson } from "./json";
import type { NewProduct, ProductDeps, ProductPatch } from "./types";

export * from "./types";
export { dekupeJson, productJson } from "./json";
export { DEKUPE_ERROR_CODES, type DekupeErrorCode } from "./dekupe-errors";
export { DEKUPE_CROPS } from "./dekupe-result";
export { productFileKeys } from "./rows";
export { createDekupe, type Dekupe } from "./dekupe";
export { ingestImage, type IngestOptions, type IngestedImage } from "./image";

export function createProducts(deps: ProductDeps) {
  const page = productPager(deps.db);
  return {
    list: (accountId: string, query: PageQuery) => listProducts(deps, page, accountId, query),
    getRow: (accountId: string, id: string) => getProductRow(deps, accountId, id),
    get: async (accountId: string, id: string) => productJson(await getProductRow(deps, accountId, id), deps.storage),
    create: (accountId: string, input: NewProduct) => createProduct(deps, accountId, input),
    update: (accountId: string, id: string, patch: ProductPatch) => updateProduct(deps, accountId, id, patch),
    delete: (accountId: string, id: string) => deleteProduct(deps, accountId, id),
  };
}

export type Products = ReturnType<typeof createProducts>;
