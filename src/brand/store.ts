// Reading and replacing an account's brand kit: the logo is ingested exactly like a product image (kept as sent, so
// a PNG or WebP keeps its alpha), the font must be one of the shipped ones, and a replaced logo's file goes.
import { eq } from "drizzle-orm";
import { errors, newId } from "../kernel";
import { ingestImage, type IngestedImage } from "../products";
import { SHIPPED_FONTS } from "../templates/api";
import { brandJson } from "./json";
import { BRAND_COLORS, type BrandDeps, type BrandInput, type BrandRow } from "./types";

const COLOR_COLUMNS = { primary: "primaryColor", secondary: "secondaryColor", background: "backgroundColor", text: "textColor" } as const;

export async function brandRow(deps: BrandDeps, accountId: string): Promise<BrandRow | undefined> {
  const { brands } = deps.db.schema;
  const [row] = await deps.db.read.select().from(brands).where(eq(brands.accountId, accountId)).limit(1);
  return row;
}

export async function getBrand(deps: BrandDeps, accountId: string) {
  return brandJson(await brandRow(deps, accountId), deps.storage);
}

function checkFont(font: string | null | undefined) {
  if (typeof font === "string" && !SHIPPED_FONTS.includes(font)) {
    throw errors.invalidField("font", `must be one of the shipped fonts: ${SHIPPED_FONTS.join(", ")}`);
  }
}

function checkColors(colors: BrandInput["colors"]) {
  for (const name of BRAND_COLORS) {
    const value = colors?.[name];
    if (typeof value === "string" && !/^#[0-9a-fA-F]{6}$/.test(value)) {
      throw errors.invalidField(`colors.${name}`, "must be a colour like #1a2b3c, or null to clear it");
    }
  }
}

/** The columns a PUT body changes: fields left out are not named, so they keep their values. */
function changedColumns(input: BrandInput, logo: { image: IngestedImage; key: string } | null): Partial<BrandRow> {
  const set: Partial<BrandRow> = {};
  if (input.logo !== undefined) {
    Object.assign(set, {
      logoKey: logo?.key ?? null,
      logoType: logo?.image.contentType ?? null,
      logoWidth: logo?.image.width ?? null,
      logoHeight: logo?.image.height ?? null,
    });
  }
  if (input.colors !== undefined) {
    for (const name of BRAND_COLORS) set[COLOR_COLUMNS[name]] = input.colors?.[name]?.toLowerCase() ?? null;
  }
  if (input.font !== undefined) set.font = input.font;
  return set;
}

/** Writes the brand in one transaction; the row is created on first use and locked while it changes. */
async function writeBrand(deps: BrandDeps, accountId: string, set: Partial<BrandRow>) {
  const { brands } = deps.db.schema;
  const at = deps.clock.now();
  return deps.db.tx(async (tx) => {
    await tx.insert(brands).values({ accountId, createdAt: at, updatedAt: at }).onConflictDoNothing();
    // Touching the row first takes its lock (PostgreSQL), so the logo it had is read by one writer at a time.
    const [before] = await tx.update(brands).set({ updatedAt: at }).where(eq(brands.accountId, accountId)).returning();
    const [after] = await tx.update(brands).set(set).where(eq(brands.accountId, accountId)).returning();
    return { before, after };
  });
}

export async function putBrand(deps: BrandDeps, accountId: string, input: BrandInput) {
  checkColors(input.colors);
  checkFont(input.font);
  // A body naming no field ({} or none at all) changes nothing: the brand is answered as it is.
  if (input.logo === undefined && input.colors === undefined && input.font === undefined) return getBrand(deps, accountId);
  let logo: { image: IngestedImage; key: string } | null = null;
  if (typeof input.logo === "string") {
    const image = await ingestImage(input.logo, { ...deps.image, field: "logo" });
    logo = { image, key: `brands/${accountId}/logo-${newId("file").slice(5)}.${image.ext}` };
    await deps.storage.put(logo.key, image.bytes, image.contentType);
  }
  let written;
  try {
    written = await writeBrand(deps, accountId, changedColumns(input, logo));
  } catch (e) {
    if (logo) await removeFile(deps, logo.key);
    throw e;
  }
  const old = written.before?.logoKey;
  if (input.logo !== undefined && old && old !== written.after.logoKey) await removeFile(deps, old);
  return brandJson(written.after, deps.storage);
}

/** Deletes a file no row points at any more, logging (not throwing) when it cannot. */
async function removeFile(deps: BrandDeps, key: string) {
  try {
    await deps.storage.delete(key);
  } catch (e) {
    deps.logger.warn("could not delete stored file", { key, err: e });
  }
}
