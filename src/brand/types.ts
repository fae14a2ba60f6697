// The words of the brand folder: a brand row, the PUT body, the colour names and the dependencies its functions take.
import type { Db, schema } from "../db";
import type { Clock, Logger } from "../kernel";
import type { StoragePlugin } from "../plugins";

export type BrandRow = typeof schema.brands.$inferSelect;

/** The brand's colour names, as the API spells them. */
export const BRAND_COLORS = ["primary", "secondary", "background", "text"] as const;
export type BrandColor = (typeof BRAND_COLORS)[number];
export type BrandColors = Partial<Record<BrandColor, string | null>>;

/**
 * A PUT /v1/brand body. A field left out keeps its value; a field given replaces it whole (`colors` replaces all
 * four colours: one not named is cleared); `null` clears it.
 */
export type BrandInput = { logo?: string | null; colors?: BrandColors | null; font?: string | null };

export type BrandDeps = {
  db: Db;
  clock: Clock;
  storage: StoragePlugin;
  logger: Logger;
  /** The same rules as product image ingest (private networks, time limit, DNS override for tests). */
  image: { allowPrivateNetworks: boolean; timeoutMs: number; resolve?: (host: string) => Promise<string[]> };
};

/** What a render takes from the brand: colours in the templates' names, the logo file, the font family. */
export type RenderBrand = {
  colors: { primary?: string; accent?: string; background?: string; text?: string };
  logoPath: string | null;
  font: string | null;
};
