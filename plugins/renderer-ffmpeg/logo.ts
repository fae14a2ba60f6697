// The account's brand logo as the scene's top layer: small, in the corner of the safe area where it covers the least
// of the template's own text and pictures over the video (9:16 keeps clear of the top 220, bottom 420 and right
// 140 px that Reels, TikTok and Shorts cover), its alpha kept.
import type { Layer, Scene } from "../../src/plugins/renderer-kit";
import sharp from "../../src/plugins/sharp";
import type { AssetWriter } from "./assets";
import { layout } from "./scene/spans";

/** The box a logo fits into (template pixels); it is never enlarged. */
export const LOGO_MAX = { width: 220, height: 110 };
const MARGIN = 56;

type Frame = { width: number; height: number; duration: number; rtl: boolean };
type Box = { x: number; y: number; width: number; height: number };

/** The safe area's four corners for a w×h logo, best first when nothing is in the way (top left, top right, …). */
export function logoCorners(frame: { width: number; height: number }, w: number, h: number): Box[] {
  const tall = frame.height > frame.width * 1.5;
  const inset = tall ? { top: 220, bottom: 420, right: 140 } : { top: 0, bottom: 0, right: 0 };
  const left = MARGIN;
  const right = frame.width - inset.right - MARGIN - w;
  const top = inset.top + MARGIN;
  const bottom = frame.height - inset.bottom - MARGIN - h;
  return [
    { x: left, y: top },
    { x: right, y: top },
    { x: left, y: bottom },
    { x: right, y: bottom },
  ].map((c) => ({ ...c, width: w, height: h }));
}

const overlap = (a: Box, b: Box) =>
  Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));

/** Room kept around the logo: text that merely touches it reads as one jumble. */
const CLEARANCE = 32;

/**
 * How much of the scene's smaller layers a box and its clearance cover over the video, as one number where covering
 * text, buttons and badges always weighs more than covering the product's box (mostly air around the product).
 */
function covered(scene: Scene, frame: Frame, logo: Box): number {
  const box = { x: logo.x - CLEARANCE, y: logo.y - CLEARANCE, width: logo.width + 2 * CLEARANCE, height: logo.height + 2 * CLEARANCE };
  let words = 0;
  let product = 0;
  for (let i = 1; i <= 10; i++) {
    const t = (frame.duration * i) / 11;
    for (const p of layout(scene, t, { templateWidth: frame.width, rtl: frame.rtl, duration: frame.duration })) {
      // Backdrops and panels as large as a good part of the frame are what a logo may sit on.
      if (!p.visible || p.width * p.height >= frame.width * frame.height * 0.3) continue;
      if (p.name === "product") product += overlap(box, p);
      else words += overlap(box, p);
    }
  }
  return words * frame.width * frame.height * 10 + product;
}

export async function logoLayer(writer: AssetWriter, logoPath: string, scene: Scene, frame: Frame): Promise<Layer> {
  const picture = sharp(logoPath, { failOn: "error" })
    .autoOrient()
    .ensureAlpha()
    .resize({
      width: Math.max(1, Math.round(LOGO_MAX.width * writer.scale)),
      height: Math.max(1, Math.round(LOGO_MAX.height * writer.scale)),
      fit: "inside",
      withoutEnlargement: true,
    });
  const image = await writer.write("logo", picture);
  const corners = logoCorners(frame, image.w, image.h);
  const best = corners.reduce((a, b) => (covered(scene, frame, b) < covered(scene, frame, a) ? b : a));
  // Not mirrored: the corner was chosen where the scene's layers already are, after their own mirroring.
  return { name: "logo", image, x: best.x, y: best.y, anchor: [0, 0], mirror: false };
}
