// A brand kit as the API shows it; an account that never set one has every field null.
import { iso } from "../kernel";
import type { StoragePlugin } from "../plugins";
import type { BrandRow } from "./types";

export function brandJson(row: BrandRow | undefined, storage: StoragePlugin) {
  return {
    object: "brand",
    logo_url: row?.logoKey ? storage.url(row.logoKey) : null,
    logo: row?.logoKey ? { content_type: row.logoType, width: row.logoWidth, height: row.logoHeight } : null,
    colors: {
      primary: row?.primaryColor ?? null,
      secondary: row?.secondaryColor ?? null,
      background: row?.backgroundColor ?? null,
      text: row?.textColor ?? null,
    },
    font: row?.font ?? null,
    updated_at: row ? iso(row.updatedAt) : null,
  };
}
