// Image side of the ISNet plugin: decodes the photo upright, and turns the model's probability map into the cut-out PNG,
// its mask and the product box, differently per attempt so a retry can give a different result.
import sharp from "../../src/plugins/sharp";
import { NoSubjectError, type Box, type Cutout } from "../../src/plugins";
import { components } from "./components";
import { decontaminate, edgeBand } from "./edges";
import { encodeRgbaPng } from "./png";

export const MAX_CUTOUT_SIDE = 1024;
/** Below this share of the frame (after dropping specks) the model found nothing worth calling a product. */
export const MIN_FOREGROUND_SHARE = 0.002;

export type Upright = { rgb: Buffer; width: number; height: number };

/** The model found no product: the kit's NoSubjectError, so the attempt fails with code `no_subject`. */
export class NoProductError extends NoSubjectError {
  constructor(message: string) {
    super(message);
    this.name = "NoProductError";
  }
}

/**
 * Longest side of the working copy. It bounds memory (a 40 MP upload would be 120 MB of RGB) while leaving enough
 * pixels for a 1024 px cut-out of any product that fills at least a quarter of the photo's longest side.
 */
export const WORK_MAX_SIDE = 4096;

/** Decodes once, upright: everything later (model input, crop) reads these pixels, never the file again. */
export async function decodeUpright(image: Uint8Array): Promise<Upright> {
  try {
    const { data, info } = await sharp(image)
      .autoOrient()
      .resize(WORK_MAX_SIDE, WORK_MAX_SIDE, { fit: "inside", withoutEnlargement: true })
      // A PNG that is already a cut-out gets a plain white backdrop rather than whatever hides under its alpha.
      .flatten({ background: "#ffffff" })
      .toColourspace("srgb")
      .raw({ depth: "uchar" })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`expected 3 colour channels, got ${info.channels}`);
    return { rgb: data, width: info.width, height: info.height };
  } catch (e) {
    throw new Error(`The image could not be decoded: ${(e as Error).message}`);
  }
}

/** The photo stretched to the model's input grid (ISNet and RMBG are trained on plain stretched squares). */
export async function resizeRgb(src: Upright, width: number, height: number): Promise<Buffer> {
  if (src.width === width && src.height === height) return src.rgb;
  return sharp(src.rgb, { raw: { width: src.width, height: src.height, channels: 3 } })
    .resize(width, height, { fit: "fill", kernel: "linear" })
    .raw()
    .toBuffer();
}

export type Variant = {
  label: string;
  /** Probability at which a pixel counts as product, for the box, speck removal and the "empty" check. */
  threshold: number;
  /** Alpha ramps from 0 at `low` to 1 at `high`: a wide ramp keeps soft edges, a narrow one cuts hard edges. */
  low: number;
  high: number;
  /** Crop margin around the product, as a share of the product box's longer side. */
  margin: number;
  /** Snap the mask's edges to the photo's edges with a guided filter (a cheap alpha-matting refinement). */
  refine: boolean;
  /** Keep only the biggest object instead of every sizeable one. */
  largestOnly: boolean;
};

export const VARIANTS: readonly Variant[] = [
  { label: "soft edges, threshold 0.5, 4% margin", threshold: 0.5, low: 0.03, high: 0.97, margin: 0.04, refine: false, largestOnly: false },
  { label: "hard edges, threshold 0.5, tight crop (1.5% margin)", threshold: 0.5, low: 0.45, high: 0.55, margin: 0.015, refine: false, largestOnly: false },
  {
    label: "edges refined against the photo (guided filter), threshold 0.3 keeps faint parts, wide crop (10% margin)",
    threshold: 0.3,
    low: 0.1,
    high: 0.6,
    margin: 0.1,
    refine: true,
    largestOnly: false,
  },
  { label: "largest object only, threshold 0.7 trims background halo, 6% margin", threshold: 0.7, low: 0.6, high: 0.85, margin: 0.06, refine: false, largestOnly: true },
];

/** Attempt 1 is the default; 2, 3 and 4 each change the mask or the crop; later attempts cycle through 2–4 again. */
export function variantFor(attempt: number): { variant: Variant; label: string } {
  const n = Math.max(1, Math.floor(attempt) || 1);
  const index = n === 1 ? 0 : ((n - 2) % (VARIANTS.length - 1)) + 1;
  const variant = VARIANTS[index];
  const label = n > VARIANTS.length ? `${variant.label} (attempt ${n} repeats attempt ${index + 1})` : variant.label;
  return { variant, label };
}

/** Mean over a (2r+1)² window clipped at the borders, in two running-sum passes. */
function boxMean(src: Float32Array, w: number, h: number, r: number, out: Float32Array, tmp: Float32Array) {
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let sum = 0;
    for (let x = 0; x < Math.min(r, w); x++) sum += src[row + x];
    for (let x = 0; x < w; x++) {
      if (x + r < w) sum += src[row + x + r];
      if (x - r - 1 >= 0) sum -= src[row + x - r - 1];
      tmp[row + x] = sum / (Math.min(w - 1, x + r) - Math.max(0, x - r) + 1);
    }
  }
  for (let x = 0; x < w; x++) {
    let sum = 0;
    for (let y = 0; y < Math.min(r, h); y++) sum += tmp[y * w + x];
    for (let y = 0; y < h; y++) {
      if (y + r < h) sum += tmp[(y + r) * w + x];
      if (y - r - 1 >= 0) sum -= tmp[(y - r - 1) * w + x];
      out[y * w + x] = sum / (Math.min(h - 1, y + r) - Math.max(0, y - r) + 1);
    }
  }
}

/** He et al.'s guided filter with the photo's luminance as guide: mask edges follow the photo's edges. */
export function guidedFilter(rgb: Uint8Array, p: Float32Array, w: number, h: number, r: number, eps: number): Float32Array {
  const n = w * h;
  const I = new Float32Array(n);
  for (let i = 0, j = 0; i < n; i++, j += 3) I[i] = (0.299 * rgb[j] + 0.587 * rgb[j + 1] + 0.114 * rgb[j + 2]) / 255;
  const tmp = new Float32Array(n);
  const mI = new Float32Array(n);
  const mP = new Float32Array(n);
  const mIp = new Float32Array(n);
  const mII = new Float32Array(n);
  const prod = new Float32Array(n);
  boxMean(I, w, h, r, mI, tmp);
  boxMean(p, w, h, r, mP, tmp);
  for (let i = 0; i < n; i++) prod[i] = I[i] * p[i];
  boxMean(prod, w, h, r, mIp, tmp);
  for (let i = 0; i < n; i++) prod[i] = I[i] * I[i];
  boxMean(prod, w, h, r, mII, tmp);
  // a and b reuse the buffers whose inputs are no longer needed.
  const a = mIp;
  const b = mII;
  for (let i = 0; i < n; i++) {
    const cov = mIp[i] - mI[i] * mP[i];
    const v = mII[i] - mI[i] * mI[i];
    const ai = cov / (v + eps);
    a[i] = ai;
    b[i] = mP[i] - ai * mI[i];
  }
  boxMean(a, w, h, r, mI, tmp);
  boxMean(b, w, h, r, mP, tmp);
  const q = prod;
  for (let i = 0; i < n; i++) q[i] = Math.min(1, Math.max(0, mI[i] * I[i] + mP[i]));
  return q;
}

/** Per output column (or row): the two source indices and the weight of the second, for bilinear sampling. */
type Axis = { i0: Int32Array; i1: Int32Array; wt: Float32Array };

function sampleAxis(outSize: number, cropStart: number, cropSize: number, imageSize: number, modelSize: number): Axis {
  const i0 = new Int32Array(outSize);
  const i1 = new Int32Array(outSize);
  const wt = new Float32Array(outSize);
  const step = cropSize / outSize;
  const toModel = modelSize / imageSize;
  for (let o = 0; o < outSize; o++) {
    const u = Math.min(modelSize - 1, Math.max(0, (cropStart + (o + 0.5) * step) * toModel - 0.5));
    const f = Math.floor(u);
    i0[o] = f;
    i1[o] = Math.min(modelSize - 1, f + 1);
    wt[o] = u - f;
  }
  return { i0, i1, wt };
}

export type Probability = {
  /** Foreground probability 0..1, row-major, at the model's output size. */
  data: Float32Array;
  width: number;
  height: number;
  /** The photo at the same size (RGB), the guide for edge refinement. */
  guide: () => Promise<Uint8Array>;
};

/**
 * The alpha of the output grid: each pixel bilinear from the model grid, mapped through the variant's low/high ramp;
 * with the bounds of the pixels at least half opaque (ax1 < 0 when there are none). Each model row the crop needs is
 * first interpolated along the output's columns, once: output rows that fall between the same two model rows (the
 * crop is usually scaled up from the model's grid) then cost one step each, with the same arithmetic as four reads.
 */
function sampleAlpha(p: Float32Array, mw: number, xs: Axis, ys: Axis, ow: number, oh: number, variant: { low: number; high: number }) {
  const alpha = new Uint8Array(ow * oh);
  const { low, high } = variant;
  const span = high - low;
  // Two model rows interpolated along x, kept by the model row they came from.
  let rowA = new Float64Array(ow), rowB = new Float64Array(ow);
  let heldA = -1, heldB = -1;
  const along = (r: number, out: Float64Array) => {
    const base = r * mw;
    for (let x = 0; x < ow; x++) {
      const c0 = base + xs.i0[x];
      out[x] = p[c0] + (p[base + xs.i1[x]] - p[c0]) * xs.wt[x];
    }
  };
  let ax0 = ow, ay0 = oh, ax1 = -1, ay1 = -1;
  for (let y = 0; y < oh; y++) {
    const r0 = ys.i0[y], r1 = ys.i1[y];
    if (heldA !== r0) {
      if (heldB === r0) [rowA, rowB, heldA, heldB] = [rowB, rowA, heldB, heldA];
      else (along(r0, rowA), (heldA = r0));
    }
    if (heldB !== r1) (along(r1, rowB), (heldB = r1));
    const wy = ys.wt[y];
    let first = -1, last = -1;
    for (let x = 0, o = y * ow; x < ow; x++, o++) {
      const top = rowA[x];
      const v = top + (rowB[x] - top) * wy;
      const a = v <= low ? 0 : v >= high ? 255 : Math.round(((v - low) / span) * 255);
      alpha[o] = a;
      if (a >= 128) {
        if (first < 0) first = x;
        last = x;
      }
    }
    if (first < 0) continue;
    if (first < ax0) ax0 = first;
    if (last > ax1) ax1 = last;
    if (ay0 > y) ay0 = y;
    ay1 = y;
  }
  return { alpha, ax0, ay0, ax1, ay1 };
}

/** A crop of the photo (its pixels), the output grid it is scaled to, and the product box it was made from (photo px). */
type Crop = { left: number; top: number; width: number; height: number; ow: number; oh: number; scale: number; fx0: number; fy0: number; fx1: number; fy1: number };

/** The crop around a box of the model grid (inclusive corners): in photo pixels, widened by the margin, clipped. */
function cropAround(src: Upright, mw: number, mh: number, [bx0, by0, bx1, by1]: [number, number, number, number], margin: number): Crop {
  const sx = src.width / mw;
  const sy = src.height / mh;
  const fx0 = bx0 * sx, fy0 = by0 * sy, fx1 = (bx1 + 1) * sx, fy1 = (by1 + 1) * sy;
  const m = margin * Math.max(fx1 - fx0, fy1 - fy0);
  const left = Math.max(0, Math.floor(fx0 - m));
  const top = Math.max(0, Math.floor(fy0 - m));
  const width = Math.max(1, Math.min(src.width, Math.ceil(fx1 + m)) - left);
  const height = Math.max(1, Math.min(src.height, Math.ceil(fy1 + m)) - top);
  const scale = Math.min(1, MAX_CUTOUT_SIDE / Math.max(width, height));
  const ow = Math.max(1, Math.min(MAX_CUTOUT_SIDE, Math.round(width * scale)));
  const oh = Math.max(1, Math.min(MAX_CUTOUT_SIDE, Math.round(height * scale)));
  return { left, top, width, height, ow, oh, scale, fx0, fy0, fx1, fy1 };
}

/** The box (inclusive corners) of every pixel at or above the threshold, or null when there is none. */
function aboveBox(p: Float32Array, w: number, h: number, threshold: number): [number, number, number, number] | null {
  let x0 = w, y0 = -1, x1 = -1, y1 = -1;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let first = 0;
    while (first < w && p[row + first] < threshold) first++;
    if (first === w) continue;
    let last = w - 1;
    while (p[row + last] < threshold) last--;
    if (y0 < 0) y0 = y;
    y1 = y;
    if (first < x0) x0 = first;
    if (last > x1) x1 = last;
  }
  return y0 < 0 ? null : [x0, y0, x1, y1];
}

/** The photo's crop scaled to the output grid, RGB. */
function cropRgb(src: Upright, crop: Crop): Promise<Buffer> {
  let pipeline = sharp(src.rgb, { raw: { width: src.width, height: src.height, channels: 3 } }).extract({ left: crop.left, top: crop.top, width: crop.width, height: crop.height });
  if (crop.ow !== crop.width || crop.oh !== crop.height) pipeline = pipeline.resize(crop.ow, crop.oh, { fit: "fill" });
  return pipeline.raw().toBuffer();
}

/**
 * RGB pixels and an alpha plane of the same size interleaved into RGBA, a pixel at a time as one 32-bit word (R in its
 * low byte: Bun runs only on little-endian CPUs), ~3× faster than a byte at a time.
 */
function withAlpha(rgb: Buffer, alpha: Uint8Array): Uint8Array {
  const rgba = new Uint8Array(alpha.length * 4);
  const words = new Uint32Array(rgba.buffer);
  for (let i = 0, j = 0; i < alpha.length; i++, j += 3) words[i] = rgb[j]! | (rgb[j + 1]! << 8) | (rgb[j + 2]! << 16) | (alpha[i]! << 24);
  return rgba;
}

/**
 * Clears the colour of the transparent pixels that touch no visible one: nothing shows it, and the photo's old
 * background there cost the PNG a third of its bytes (0.89 MB instead of 1.35 for a coffee cup with a third of its
 * frame transparent) and ~5 ms of deflating. The ring of transparent pixels next to the product keeps the product's
 * colour that decontamination gave it, for renderers that scale without premultiplying alpha. `alpha` is the cut-out's
 * alpha plane (decontamination leaves alpha as it is); a cleared pixel is a zero word.
 */
function clearHidden(rgba: Uint8Array, alpha: Uint8Array, w: number, h: number): void {
  const words = new Uint32Array(rgba.buffer, rgba.byteOffset, w * h);
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      if (alpha[i] !== 0) continue;
      if ((x > 0 && alpha[i - 1] !== 0) || (x < w - 1 && alpha[i + 1] !== 0) || (y > 0 && alpha[i - w] !== 0) || (y < h - 1 && alpha[i + w] !== 0)) continue;
      words[i] = 0;
    }
  }
}

/** From the model's probability map to the finished cut-out: clean, box, crop, cap at 1024 px, apply alpha, encode. */
export async function makeCutout(src: Upright, prob: Probability, attempt: number): Promise<Cutout> {
  const { variant, label } = variantFor(attempt);
  const { width: mw, height: mh } = prob;
  let p = prob.data;
  if (variant.refine) p = guidedFilter(await prob.guide(), p, mw, mh, Math.max(2, Math.round(Math.max(mw, mh) / 128)), 2e-3);

  // With no component dropped (the usual case), the crop is the one around every pixel at or above the threshold:
  // libvips starts on it while the components are found. When a speck is dropped, the photo is cropped again.
  const all = variant.largestOnly ? null : aboveBox(p, mw, mh, variant.threshold);
  const early = all ? cropAround(src, mw, mh, all, variant.margin) : null;
  const earlyPixels = early ? cropRgb(src, early) : null;
  // Awaited below, or dropped; its failure counts only if it is used.
  earlyPixels?.catch(() => {});

  const comps = components(p, mw, mh, variant.threshold);
  let largest = 0;
  for (let id = 1; id < comps.areas.length; id++) if (comps.areas[id] > comps.areas[largest]) largest = id;
  // Specks (a reflection, a stray blob) would stretch the box; separate parts of one product (a pair of earrings) stay.
  const keep = new Uint8Array(comps.areas.length);
  let kept = 0;
  let bx0 = mw, by0 = mh, bx1 = -1, by1 = -1;
  for (let id = 1; id < comps.areas.length; id++) {
    const big = variant.largestOnly ? id === largest : comps.areas[id] >= 0.02 * comps.areas[largest];
    if (!big) continue;
    keep[id] = 1;
    kept += comps.areas[id];
    const [x0, y0, x1, y1] = comps.boxes[id];
    bx0 = Math.min(bx0, x0);
    by0 = Math.min(by0, y0);
    bx1 = Math.max(bx1, x1);
    by1 = Math.max(by1, y1);
  }
  const share = kept / (mw * mh);
  if (largest === 0 || share < MIN_FOREGROUND_SHARE) {
    throw new NoProductError(
      `No product found in the image: the model marked ${(share * 100).toFixed(2)}% of it as foreground, ` +
        `less than the ${MIN_FOREGROUND_SHARE * 100}% needed. The photo may show no distinct object, or the product blends into its background.`,
    );
  }
  if (keep.some((k, id) => id > 0 && k === 0)) {
    if (p === prob.data) p = new Float32Array(p);
    for (let i = 0; i < p.length; i++) if (comps.labels[i] !== 0 && keep[comps.labels[i]] === 0) p[i] = 0;
  }

  const crop = cropAround(src, mw, mh, [bx0, by0, bx1, by1], variant.margin);
  const { left, top, width: cw, height: ch, ow, oh, scale, fx0, fy0, fx1, fy1 } = crop;
  // libvips crops and scales the photo to the output grid while the alpha is sampled here, from the model grid straight
  // onto the output grid (one bilinear step, no full-size mask in between).
  const same = early && early.left === left && early.top === top && early.width === cw && early.height === ch && early.ow === ow && early.oh === oh;
  const rgbPixels = same ? earlyPixels! : cropRgb(src, crop);
  const xs = sampleAxis(ow, left, cw, src.width, mw);
  const ys = sampleAxis(oh, top, ch, src.height, mh);
  const { alpha, ax0, ay0, ax1, ay1 } = sampleAlpha(p, mw, xs, ys, ow, oh, variant);
  const box: Box =
    ax1 >= 0
      ? { x: ax0, y: ay0, width: ax1 - ax0 + 1, height: ay1 - ay0 + 1 }
      : {
          x: Math.max(0, Math.floor((fx0 - left) * scale)),
          y: Math.max(0, Math.floor((fy0 - top) * scale)),
          width: Math.max(1, Math.min(ow, Math.round((fx1 - fx0) * scale))),
          height: Math.max(1, Math.min(oh, Math.round((fy1 - fy0) * scale))),
        };

  // The mask encodes in libvips while the cut-out's edges are decontaminated (edges.ts) and it is encoded (png.ts).
  const alphaRaw = Buffer.from(alpha.buffer, alpha.byteOffset, alpha.length);
  const mask = sharp(alphaRaw, { raw: { width: ow, height: oh, channels: 1 } }).toColourspace("b-w").png({ compressionLevel: 6 }).toBuffer();
  // Awaited below; until then a failure of either must not count as unhandled.
  for (const pending of [mask, rgbPixels]) pending.catch(() => {});
  // The edge band needs only the alpha: it is found while libvips is still cropping.
  const band = edgeBand(alpha, ow, oh);
  const rgba = withAlpha(await rgbPixels, alpha);
  decontaminate(rgba, ow, oh, band);
  clearHidden(rgba, alpha, ow, oh);
  const png = encodeRgbaPng(rgba, ow, oh);
  const maskPng = await mask;
  return {
    png: new Uint8Array(png.buffer, png.byteOffset, png.length),
    mask: new Uint8Array(maskPng.buffer, maskPng.byteOffset, maskPng.length),
    alpha,
    width: ow,
    height: oh,
    box,
    sourceBox: { x: left, y: top, width: cw, height: ch },
    variant: label,
  };
}
