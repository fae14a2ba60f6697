// What a render takes from the account's brand: its colours under the templates' names (secondary is a template's
// accent), merged under the video's own colours, and its logo written into the render's scratch folder.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { brandRow } from "./store";
import type { BrandDeps, RenderBrand } from "./types";

export async function brandForRender(deps: BrandDeps, accountId: string, workDir: string): Promise<RenderBrand> {
  const row = await brandRow(deps, accountId);
  const colors: RenderBrand["colors"] = {};
  if (row?.primaryColor) colors.primary = row.primaryColor;
  if (row?.secondaryColor) colors.accent = row.secondaryColor;
  if (row?.backgroundColor) colors.background = row.backgroundColor;
  if (row?.textColor) colors.text = row.textColor;
  let logoPath: string | null = null;
  // A logo missing from storage leaves the video without it rather than failing a paid render.
  const logo = row?.logoKey ? await deps.storage.get(row.logoKey) : null;
  if (row && logo) {
    logoPath = join(workDir, `logo.${row.logoType === "image/png" ? "png" : row.logoType === "image/webp" ? "webp" : "jpg"}`);
    await writeFile(logoPath, new Uint8Array(await logo.body.arrayBuffer()));
  }
  return { colors, logoPath, font: row?.font ?? null };
}

/**
 * The prompt a template is given: the brand's colours under the video's own (a colour the video names wins), only
 * where the template's prompt takes `colors`, and only the names its schema knows (templates refuse unknown ones).
 */
export function withBrandColors(promptSchema: unknown, prompt: Record<string, unknown>, brand: RenderBrand): Record<string, unknown> {
  const known = (promptSchema as { properties?: { colors?: { properties?: Record<string, unknown> } } }).properties?.colors?.properties;
  if (!known) return prompt;
  const fromBrand = Object.fromEntries(Object.entries(brand.colors).filter(([name]) => name in known));
  if (Object.keys(fromBrand).length === 0) return prompt;
  const own = (prompt.colors ?? {}) as Record<string, unknown>;
  return { ...prompt, colors: { ...fromBrand, ...own } };
}
