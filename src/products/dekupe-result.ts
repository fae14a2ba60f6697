// What a cut-out attempt tells the account besides its PNG: where it sits in the photo (source_box), the photo-sized
// variant for crop "none", and warnings read from the mask (edge contact, small subject, soft matte, frame filling).
import type { Box, Cutout } from "../plugins";
import { sharp } from "../native";

export type DekupeCrop = "subject" | "none";
export const DEKUPE_CROPS: readonly DekupeCrop[] = ["subject", "none"];
export type DekupeWarning = "subject_touches_edge" | "small_subject" | "soft_matte" | "frame_filling";

/** Mask alpha at or above which a pixel is part of the subject at all; below it the matte counts as empty. */
const VISIBLE_ALPHA = 20;
/** Alpha range of a half-transparent pixel (soft_matte counts these). */
const SOFT_HIGH = 235;
/** soft_matte: more than this share of the subject's visible pixels are half-transparent. */
const SOFT_SHARE = 0.15;
/** frame_filling: the subject covers more than this share of the photo. */
const FRAME_SHARE = 0.9;
/**
 * small_subject: the built-in templates show the product at most about 900 px on its long side in a 1080-wide video,
 * so a subject under half that in the photo is upscaled more than 2×.
 */
export const TEMPLATE_PRODUCT_SIDE = 900;

export class EmptyMatteError extends Error {}

export type CutoutResult = { cut: Cutout; sourceBox: Box; warnings: DekupeWarning[] };

type MaskStats = { visible: number; solid: number; soft: number; edges: { left: boolean; top: boolean; right: boolean; bottom: boolean } };

function maskStats(alpha: Uint8Array, w: number, h: number): MaskStats {
  let visible = 0, solid = 0, soft = 0;
  const edges = { left: false, top: false, right: false, bottom: false };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const a = alpha[y * w + x];
      if (a < VISIBLE_ALPHA) continue;
      visible++;
      if (a > SOFT_HIGH) solid++;
      else soft++;
      if (a < 128) continue;
      if (x === 0) edges.left = true;
      if (x === w - 1) edges.right = true;
      if (y === 0) edges.top = true;
      if (y === h - 1) edges.bottom = true;
    }
  }
  return { visible, solid, soft, edges };
}

/** The warnings for a mask of `w`×`h` whose pixels cover `sourceBox` of a `photoW`×`photoH` photo. */
function warningsOf(stats: MaskStats, box: Box, w: number, h: number, sourceBox: Box, photoW: number, photoH: number): DekupeWarning[] {
  const warnings: DekupeWarning[] = [];
  const { edges } = stats;
  const touches =
    (edges.left && sourceBox.x <= 0) ||
    (edges.top && sourceBox.y <= 0) ||
    (edges.right && sourceBox.x + sourceBox.width >= photoW) ||
    (edges.bottom && sourceBox.y + sourceBox.height >= photoH);
  if (touches) warnings.push("subject_touches_edge");
  const sx = sourceBox.width / w;
  const sy = sourceBox.height / h;
  if (Math.max(box.width * sx, box.height * sy) * 2 < TEMPLATE_PRODUCT_SIDE) warnings.push("small_subject");
  if (stats.soft > SOFT_SHARE * stats.visible) warnings.push("soft_matte");
  if ((stats.visible - stats.soft / 2) * sx * sy > FRAME_SHARE * photoW * photoH) warnings.push("frame_filling");
  return warnings;
}

/** The cut-out as a PNG of the photo's own size: the photo's pixels with the mask placed at `sourceBox`. */
async function photoSized(photo: Uint8Array, cut: Cutout, sourceBox: Box, photoW: number, photoH: number): Promise<Cutout> {
  const alpha = await sharp(cut.mask)
    .toColourspace("b-w")
    .resize(sourceBox.width, sourceBox.height, { fit: "fill" })
    .extend({
      left: sourceBox.x,
      top: sourceBox.y,
      right: photoW - sourceBox.x - sourceBox.width,
      bottom: photoH - sourceBox.y - sourceBox.height,
      background: { r: 0, g: 0, b: 0 },
    })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const raw = { raw: { width: photoW, height: photoH, channels: 1 as const } };
  // Decoded to raw RGB first: sharp drops a photo's alpha at the end of a pipeline, which would take the joined one too.
  const rgb = await sharp(photo).autoOrient().removeAlpha().raw().toBuffer();
  const [png, mask] = await Promise.all([
    sharp(rgb, { raw: { width: photoW, height: photoH, channels: 3 } }).joinChannel(alpha, raw).png({ compressionLevel: 3 }).toBuffer(),
    sharp(alpha, raw).toColourspace("b-w").png({ compressionLevel: 6 }).toBuffer(),
  ]);
  const sx = sourceBox.width / cut.width;
  const sy = sourceBox.height / cut.height;
  const box = {
    x: Math.floor(sourceBox.x + cut.box.x * sx),
    y: Math.floor(sourceBox.y + cut.box.y * sy),
    width: Math.max(1, Math.round(cut.box.width * sx)),
    height: Math.max(1, Math.round(cut.box.height * sy)),
  };
  return { ...cut, png: new Uint8Array(png), mask: new Uint8Array(mask), alpha: new Uint8Array(alpha), width: photoW, height: photoH, box };
}

/** The mask's pixels: the plugin's own when it handed them over (a 1024 px mask decodes in ~4 ms), else decoded. */
async function maskPixels(cut: Cutout): Promise<{ alpha: Uint8Array; width: number; height: number }> {
  if (cut.alpha && cut.alpha.length === cut.width * cut.height) return { alpha: cut.alpha, width: cut.width, height: cut.height };
  const { data, info } = await sharp(cut.mask).toColourspace("b-w").extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { alpha: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/**
 * Checks and places a plugin's cut-out of the upright `photoW`×`photoH` photo: an empty matte throws EmptyMatteError
 * (a failed attempt, never a blank PNG); crop "none" turns it into a photo-sized PNG.
 */
export async function finishCutout(photo: Uint8Array, cut: Cutout, crop: DekupeCrop, photoW: number, photoH: number): Promise<CutoutResult> {
  const sourceBox = cut.sourceBox ?? { x: 0, y: 0, width: photoW, height: photoH };
  const { alpha, width, height } = await maskPixels(cut);
  const stats = maskStats(alpha, width, height);
  if (stats.visible === 0) {
    throw new EmptyMatteError(`The cut-out came out empty: no pixel of the mask reaches alpha ${VISIBLE_ALPHA}.`);
  }
  const warnings = warningsOf(stats, cut.box, width, height, sourceBox, photoW, photoH);
  if (crop === "subject") return { cut, sourceBox, warnings };
  return { cut: await photoSized(photo, cut, sourceBox, photoW, photoH), sourceBox: { x: 0, y: 0, width: photoW, height: photoH }, warnings };
}
