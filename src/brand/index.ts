// The brand kit: an account's logo, colours and font (PUT/GET /v1/brand), which every video of the account uses by
// default under its own colours. This face assembles store.ts and render.ts over one dependencies object.
import { brandForRender, withBrandColors } from "./render";
import { getBrand, putBrand } from "./store";
import type { BrandDeps, BrandInput } from "./types";

export { BRAND_COLORS, type BrandColors, type BrandDeps, type BrandInput, type RenderBrand } from "./types";
export { withBrandColors } from "./render";

export function createBrand(deps: BrandDeps) {
  return {
    get: (accountId: string) => getBrand(deps, accountId),
    put: (accountId: string, input: BrandInput) => putBrand(deps, accountId, input),
    /** The brand a render of this account uses, its logo written into `workDir`. */
    forRender: (accountId: string, workDir: string) => brandForRender(deps, accountId, workDir),
    withColors: withBrandColors,
  };
}

export type Brand = ReturnType<typeof createBrand>;
