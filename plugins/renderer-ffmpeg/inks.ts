// What the readable-colour pass needs to know of the text inside buttons and groups: where the glyphs are, what they
// sit on, and (for groups) the recipe to draw the group again with a panel under a text that is hard to read.
import type { OverlayOptions, Sharp } from "sharp";
import type { Asset, ButtonOptions, GroupOptions } from "../../src/plugins/renderer-kit";
import sharp from "../../src/plugins/sharp";
import { colorRatio, DECIDE, farthestOf, parseColor, thresholdOf, type Ink } from "./contrast";
import type { TextImage } from "./text";

/**
 * Groups as they were asked for (by picture path: templates may copy the asset object), and which item each of their
 * texts came from: to draw them again with panels.
 */
const recipes = new Map<string, GroupOptions>();

/** An item of a group where it lands in the group's picture (render pixels), and its overlay (null when outside). */
export type PlacedItem = { item: GroupOptions["items"][number]; left: number; top: number; overlay: OverlayOptions | null };

/** What this file needs of the render's asset writer (assets.ts, which calls in here). */
type Writer = { scale: number; path(name: string): Promise<string>; write(name: string, png: Buffer | Sharp): Promise<Asset> };
const inkItem = new WeakMap<Ink, number>();

export const recipeOf = (asset: Asset): GroupOptions | undefined => recipes.get(asset.path);
/** A group drawn again (with panels) into the file of the old one keeps its recipe under that name. */
export const rememberRecipe = (path: string, o: GroupOptions): void => void recipes.set(path, o);
export const itemOf = (ink: Ink): number | undefined => inkItem.get(ink);

/**
 * A button's label: written out as the glyph mask, judged against the button's fill (both ends of a gradient); when
 * the label does not reach its threshold there, it gets an outline in black or white, whichever stands out more.
 */
export async function labelInk(writer: Writer, o: ButtonOptions, label: TextImage, at: { left: number; top: number }): Promise<{ ink: Ink; outline: OverlayOptions[] }> {
  const mask = await writer.path(`${o.name ?? "button"}-label`);
  await Bun.write(mask, label.png);
  const on = [o.background, ...(o.background2 ? [o.background2] : [])];
  const ink: Ink = { color: o.color, size: label.fontSize, weight: o.weight ?? 700, mask, left: at.left, top: at.top, on };
  const worst = Math.min(...on.map((c) => colorRatio(o.color, c)));
  if (worst >= thresholdOf(ink) * DECIDE || !parseColor(o.color)) return { ink, outline: [] };
  ink.outline = farthestOf(o.color);
  // An outline about a sixth of the font size thick (at least 5 pixels, so it shows past 4:2:0 colour bleeding), grown
  // from the glyphs by blurring their alpha.
  const r = Math.max(5, Math.round(label.fontSize * writer.scale * 0.18));
  return { ink, outline: [await outlineOf(label.png, ink.outline, r, at)] };
}

/** A solid band of `color` around the glyphs of a transparent text picture, `r` pixels wide. */
async function outlineOf(png: Buffer, color: string, r: number, at: { left: number; top: number }): Promise<OverlayOptions> {
  // Two pipelines: sharp would extend before extracting the alpha, and the border would come out opaque.
  const glyphs = await sharp(png).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
  const alpha = await sharp(glyphs.data, { raw: { width: glyphs.info.width, height: glyphs.info.height, channels: 1 } })
    .extend({ top: 2 * r, bottom: 2 * r, left: 2 * r, right: 2 * r, background: { r: 0, g: 0, b: 0, alpha: 1 } })
    .blur(r)
    // Blurred alpha is a soft ramp; a gain of 10 turns it solid out to about 1.2 r from the glyphs, then it fades.
    .linear(10, 0)
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const [cr, cg, cb] = parseColor(color)!;
  const { width, height } = alpha.info;
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0, j = 0; i < width * height; i++, j += 4) {
    rgba[j] = cr;
    rgba[j + 1] = cg;
    rgba[j + 2] = cb;
    rgba[j + 3] = alpha.data[i]!;
  }
  // The band may reach past the button's edge on the left or top: cut that part off (sharp refuses overlays outside).
  const cutX = Math.max(0, 2 * r - at.left);
  const cutY = Math.max(0, 2 * r - at.top);
  const input = await sharp(rgba, { raw: { width, height, channels: 4 } })
    .extract({ left: cutX, top: cutY, width: width - cutX, height: height - cutY })
    .png()
    .toBuffer();
  return { input, left: at.left - 2 * r + cutX, top: at.top - 2 * r + cutY };
}

/**
 * The texts of a group's items moved into the group's picture, with a picture of what the group draws under them
 * (its own card and the other items) so the pass can judge them against it.
 */
export async function groupInks(writer: Writer, o: GroupOptions, asset: Asset, placed: PlacedItem[], canvas: (items: PlacedItem[]) => Sharp): Promise<Asset> {
  recipes.set(asset.path, o);
  const inks: Ink[] = [];
  const isText = (p: PlacedItem) => !!p.item.image.ink?.some((k) => !k.on);
  placed.forEach((p, index) => {
    for (const k of p.item.image.ink ?? []) {
      const moved: Ink = { ...k, left: k.left + p.left, top: k.top + p.top };
      inkItem.set(moved, index);
      inks.push(moved);
    }
  });
  if (inks.length === 0) return asset;
  if (placed.some(isText)) {
    const under = await writer.write(`${o.name ?? "group"}-under`, canvas(placed.filter((p) => !isText(p))));
    for (const k of inks) if (!k.on) k.under = under.path;
  }
  return { ...asset, ink: inks };
}
