// Edge decontamination for cut-outs: semi-transparent edge pixels get an estimate of the product's own colour instead
// of the photo's mix of product and old background, so a cut-out on a new backdrop shows no fringe of the old one.
//
// The estimate is Forte and Pitié's blur fusion ("Approximate fast foreground colour estimation", ICIP 2021):
// F = F̂ + α·(I − α·F̂ − (1−α)·B̂), with F̂ and B̂ the alpha-weighted local means of foreground and background colour,
// run twice: once with a wide window (computed on a grid 4× coarser, it only has to be smooth) and once with a narrow
// one on the first pass's result, so each edge pixel borrows colour from the product right next to it. The narrow
// pass takes its background from the photo's fully transparent pixels nearby, which follows gradients and textures
// better than the paper's re-blurred coarse background. Only pixels with 0 < α < 1 change colour; fully transparent
// pixels touching the product take the product's colour too (invisible, but a renderer that scales the cut-out without
// premultiplying alpha would otherwise pull the old background into the edge).

import sharp from "../../src/plugins/sharp";
import { encodeRgbaPng } from "./png";

/** The wide pass works on cells this many pixels square. */
const GRID = 4;
/** Opaque pixels this close (chessboard) to a non-opaque one are part of the band. */
const RING = 2;
/** The most of an opaque edge pixel's colour that can be taken for background, and the least colour difference (RGB) that lets it. */
const MAX_UNMIX = 0.6;
const MIN_CONTRAST = 30;

/** The window radii for a cut-out of this size: wide ≈ 1/12 of the longer side, narrow 6 px per 1024. */
export function edgeRadii(width: number, height: number): { wide: number; narrow: number } {
  const side = Math.max(width, height);
  return { wide: Math.max(8, Math.round(side / 12)), narrow: Math.max(3, Math.round((6 * side) / 1024)) };
}

/** Running-sum box filter in place over a w×h plane (window (2r+1)², clipped at the borders, sums not means). */
function boxSum(plane: Float32Array, w: number, h: number, r: number, tmp: Float32Array) {
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let sum = 0;
    for (let x = 0; x < Math.min(r, w); x++) sum += plane[row + x];
    for (let x = 0; x < w; x++) {
      if (x + r < w) sum += plane[row + x + r];
      if (x > r) sum -= plane[row + x - r - 1];
      tmp[row + x] = sum;
    }
  }
  for (let x = 0; x < w; x++) {
    let sum = 0;
    for (let y = 0; y < Math.min(r, h); y++) sum += tmp[y * w + x];
    for (let y = 0; y < h; y++) {
      if (y + r < h) sum += tmp[(y + r) * w + x];
      if (y > r) sum -= tmp[(y - r - 1) * w + x];
      plane[y * w + x] = sum;
    }
  }
}

/** Pixels whose colour is re-estimated, in raster order: partly transparent ones, and transparent ones touching the product. */
function edgeBand(rgba: Uint8Array, w: number, h: number): Int32Array {
  const marks = new Uint8Array(w * h);
  let count = 0;
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i++) {
      const a = rgba[i * 4 + 3];
      if (a === 255) continue;
      if (a > 0) {
        marks[i] = 1;
        count++;
        continue;
      }
      const q = i * 4 + 3;
      if ((x > 0 && rgba[q - 4] > 0) || (x < w - 1 && rgba[q + 4] > 0) || (y > 0 && rgba[q - 4 * w] > 0) || (y < h - 1 && rgba[q + 4 * w] > 0)) {
        marks[i] = 1;
        count++;
      }
    }
  }
  // Opaque pixels next to the edge carry some of the old background too (the photo's own blur, JPEG's halved chroma).
  let ring = 0;
  for (let i = 0; i < marks.length; i++) {
    if (marks[i] !== 1) continue;
    const x = i % w, y = (i / w) | 0;
    for (let yy = Math.max(0, y - RING); yy <= Math.min(h - 1, y + RING); yy++) {
      for (let xx = Math.max(0, x - RING), j = yy * w + xx; xx <= Math.min(w - 1, x + RING); xx++, j++) {
        if (marks[j] === 0 && rgba[j * 4 + 3] === 255) (marks[j] = 2), ring++;
      }
    }
  }
  const band = new Int32Array(count + ring);
  for (let i = 0, k = 0; k < count + ring; i++) if (marks[i]) band[k++] = i;
  return band;
}

/**
 * An opaque edge pixel's colour less its share of background: the part of (I − F̂) along the line from F̂ to B̂, at most
 * MAX_UNMIX of it, and nothing where foreground and background colours are too alike to tell apart or where the
 * pixel strays from that line more than it follows it.
 */
function unmix(rgba: Uint8Array, q: number, photo: Uint8Array, p: number, fg: ArrayLike<number>, f: number, bg: ArrayLike<number>, b: number) {
  const dr = bg[b] - fg[f], dg = bg[b + 1] - fg[f + 1], db = bg[b + 2] - fg[f + 2];
  const d2 = dr * dr + dg * dg + db * db;
  if (d2 < MIN_CONTRAST * MIN_CONTRAST) return;
  const er = photo[p] - fg[f], eg = photo[p + 1] - fg[f + 1], eb = photo[p + 2] - fg[f + 2];
  const t = (er * dr + eg * dg + eb * db) / d2;
  // A pixel that differs from F̂ mostly across the line is product detail (a rim, a seam), not background showing through.
  const along2 = t * t * d2;
  if (t <= 0 || er * er + eg * eg + eb * eb - along2 > along2) return;
  const beta = t <= 0 ? 0 : t > MAX_UNMIX ? MAX_UNMIX : t;
  rgba[q] = clamp255(photo[p] - beta * dr);
  rgba[q + 1] = clamp255(photo[p + 1] - beta * dg);
  rgba[q + 2] = clamp255(photo[p + 2] - beta * db);
}

/**
 * The wide pass's local means on the coarse grid: per cell the alpha-weighted mean colour (foreground, planes 0–2) and
 * the (1−α)-weighted one (background, planes 3–5) over the wide window. A cell with no weight in reach takes the whole
 * image's mean.
 */
function coarseMeans(rgba: Uint8Array, w: number, h: number, radius: number) {
  const gw = Math.ceil(w / GRID);
  const gh = Math.ceil(h / GRID);
  const g = gw * gh;
  const sa = new Float32Array(g), sfr = new Float32Array(g), sfg = new Float32Array(g), sfb = new Float32Array(g);
  const sb = new Float32Array(g), sbr = new Float32Array(g), sbg = new Float32Array(g), sbb = new Float32Array(g);
  // One pixel per cell, the one nearest its centre: a wide window holds hundreds of cells, plenty for a smooth mean.
  for (let gy = 0; gy < gh; gy++) {
    const y = Math.min(h - 1, gy * GRID + (GRID >> 1));
    for (let gx = 0; gx < gw; gx++) {
      const cell = gy * gw + gx;
      const q = (y * w + Math.min(w - 1, gx * GRID + (GRID >> 1))) * 4;
      const a = rgba[q + 3];
      const b = 255 - a;
      const r = rgba[q], gg = rgba[q + 1], bb = rgba[q + 2];
      sa[cell] += a;
      sfr[cell] += a * r;
      sfg[cell] += a * gg;
      sfb[cell] += a * bb;
      sb[cell] += b;
      sbr[cell] += b * r;
      sbg[cell] += b * gg;
      sbb[cell] += b * bb;
    }
  }
  const planes = [sa, sfr, sfg, sfb, sb, sbr, sbg, sbb];
  const total = new Float64Array(8);
  for (let k = 0; k < 8; k++) for (let c = 0; c < g; c++) total[k] += planes[k][c];
  const tmp = new Float32Array(g);
  const r = Math.max(1, Math.round(radius / GRID));
  for (const plane of planes) boxSum(plane, gw, gh, r, tmp);
  const means = Array.from({ length: 6 }, () => new Float32Array(g));
  for (let c = 0; c < g; c++) {
    for (let k = 0; k < 3; k++) {
      means[k][c] = sa[c] > 0 ? planes[1 + k][c] / sa[c] : total[0] > 0 ? total[1 + k] / total[0] : 0;
      means[3 + k][c] = sb[c] > 0 ? planes[5 + k][c] / sb[c] : total[4] > 0 ? total[5 + k] / total[4] : 0;
    }
  }
  return { gw, gh, means };
}

/** The coarse planes sampled bilinearly at one pixel's centre, into out[0..5]. */
function sampleCoarse(means: Float32Array[], gw: number, gh: number, x: number, y: number, out: Float32Array) {
  const u = Math.min(gw - 1, Math.max(0, (x + 0.5) / GRID - 0.5));
  const v = Math.min(gh - 1, Math.max(0, (y + 0.5) / GRID - 0.5));
  const x0 = u | 0, y0 = v | 0;
  const x1 = Math.min(gw - 1, x0 + 1), y1 = Math.min(gh - 1, y0 + 1);
  const fx = u - x0, fy = v - y0;
  const i00 = y0 * gw + x0, i01 = y0 * gw + x1, i10 = y1 * gw + x0, i11 = y1 * gw + x1;
  for (let k = 0; k < 6; k++) {
    const m = means[k];
    const top = m[i00] + (m[i01] - m[i00]) * fx;
    const bottom = m[i10] + (m[i11] - m[i10]) * fx;
    out[k] = top + (bottom - top) * fy;
  }
}

const clamp255 = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/**
 * Decontaminates the edges of a cut-out in place: `rgba` is the photo cropped to the cut-out with its matte as alpha.
 * Alpha is left as it is.
 */
export function decontaminate(rgba: Uint8Array, w: number, h: number): void {
  const band = edgeBand(rgba, w, h);
  if (band.length === 0) return;
  const { wide, narrow } = edgeRadii(w, h);
  const { gw, gh, means } = coarseMeans(rgba, w, h, wide);
  // The photo's colour at the band (the narrow pass needs it after F1 has taken its place), and the coarse background
  // as the narrow pass's fallback where no transparent pixel is in reach.
  const photo = new Uint8Array(band.length * 3);
  const coarseB = new Float32Array(band.length * 3);
  const s = new Float32Array(6);
  for (let k = 0; k < band.length; k++) {
    const i = band[k];
    const q = i * 4;
    sampleCoarse(means, gw, gh, i % w, (i / w) | 0, s);
    const a = rgba[q + 3] / 255;
    for (let c = 0; c < 3; c++) {
      const v = rgba[q + c];
      photo[k * 3 + c] = v;
      coarseB[k * 3 + c] = s[3 + c];
      // F1 from the wide pass replaces the photo's colour where the pixel is partly transparent.
      if (a > 0 && a < 1) rgba[q + c] = clamp255(s[c] + a * (v - a * s[c] - (1 - a) * s[3 + c]));
    }
  }
  const sums = narrowSums(rgba, w, h, narrow, band);
  const fgMean = new Float32Array(3);
  const bgMean = new Float32Array(3);
  for (let k = 0; k < band.length; k++) {
    const q = band[k] * 4;
    const a = rgba[q + 3] / 255;
    const sa = sums[k * 8], sn = sums[k * 8 + 4];
    if (a === 1) {
      for (let c = 0; c < 3; c++) {
        fgMean[c] = sums[k * 8 + 1 + c] / sa;
        bgMean[c] = sn > 0 ? sums[k * 8 + 5 + c] / sn : coarseB[k * 3 + c];
      }
      unmix(rgba, q, photo, k * 3, fgMean, 0, bgMean, 0);
      continue;
    }
    for (let c = 0; c < 3; c++) {
      const fg = sa > 0 ? sums[k * 8 + 1 + c] / sa : rgba[q + c];
      if (a === 0) {
        // Invisible, but it is what a renderer that scales without premultiplying alpha blends into the edge.
        rgba[q + c] = clamp255(fg);
        continue;
      }
      const bg = sn > 0 ? sums[k * 8 + 5 + c] / sn : coarseB[k * 3 + c];
      rgba[q + c] = clamp255(fg + a * (photo[k * 3 + c] - a * fg - (1 - a) * bg));
    }
  }
}

/**
 * The narrow pass's window sums at every band pixel, 8 per pixel: Σα, Σα·F (3), the count of fully transparent pixels
 * and the sum of their colour (3). Horizontal sums are made only where a band pixel is within the radius vertically
 * (a few rows around the outline, not the whole cut-out), then summed vertically at the band pixels.
 */
function narrowSums(rgba: Uint8Array, w: number, h: number, r: number, band: Int32Array): Float32Array {
  // Where a horizontal sum is needed: the band spread vertically by r, numbered in raster order, over the rows it spans.
  const top = Math.max(0, ((band[0] / w) | 0) - r);
  const bottom = Math.min(h - 1, ((band[band.length - 1] / w) | 0) + r);
  const base = top * w;
  const slot = new Int32Array((bottom - top + 1) * w).fill(-1);
  for (let k = 0; k < band.length; k++) {
    const x = band[k] % w, y = (band[k] / w) | 0;
    for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) slot[yy * w + x - base] = 0;
  }
  let needed = 0;
  for (let i = 0; i < slot.length; i++) if (slot[i] === 0) slot[i] = needed++;
  const rows = new Float32Array(needed * 8);
  const acc = new Float64Array(8);
  const add = (i: number, sign: number) => {
    const q = i * 4;
    const a = rgba[q + 3];
    if (a > 0) {
      acc[0] += sign * a;
      acc[1] += sign * a * rgba[q];
      acc[2] += sign * a * rgba[q + 1];
      acc[3] += sign * a * rgba[q + 2];
    } else {
      acc[4] += sign;
      acc[5] += sign * rgba[q];
      acc[6] += sign * rgba[q + 1];
      acc[7] += sign * rgba[q + 2];
    }
  };
  for (let y = top; y <= bottom; y++) {
    const row = y * w;
    let sliding = false;
    for (let x = 0; x < w; x++) {
      const k = slot[row + x - base];
      if (k < 0) {
        sliding = false;
        continue;
      }
      if (sliding) {
        if (x + r < w) add(row + x + r, 1);
        if (x - r - 1 >= 0) add(row + x - r - 1, -1);
      } else {
        acc.fill(0);
        for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) add(row + xx, 1);
        sliding = true;
      }
      for (let c = 0; c < 8; c++) rows[k * 8 + c] = acc[c];
    }
  }
  const sums = new Float32Array(band.length * 8);
  for (let k = 0; k < band.length; k++) {
    const x = band[k] % w, y = (band[k] / w) | 0;
    // Local sums rounded to float32 at each step, as the Float32Array's own += did: the same results, fewer loads.
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (let yy = Math.max(0, y - r), at = yy * w + x - base; yy <= Math.min(h - 1, y + r); yy++, at += w) {
      const from = slot[at] * 8;
      s0 = Math.fround(s0 + rows[from]);
      s1 = Math.fround(s1 + rows[from + 1]);
      s2 = Math.fround(s2 + rows[from + 2]);
      s3 = Math.fround(s3 + rows[from + 3]);
      s4 = Math.fround(s4 + rows[from + 4]);
      s5 = Math.fround(s5 + rows[from + 5]);
      s6 = Math.fround(s6 + rows[from + 6]);
      s7 = Math.fround(s7 + rows[from + 7]);
    }
    const o = k * 8;
    (sums[o] = s0), (sums[o + 1] = s1), (sums[o + 2] = s2), (sums[o + 3] = s3);
    (sums[o + 4] = s4), (sums[o + 5] = s5), (sums[o + 6] = s6), (sums[o + 7] = s7);
  }
  return sums;
}

/**
 * The cut-out PNG: the photo cropped (and scaled) to the output grid with `alpha` joined, its edges decontaminated,
 * encoded by png.ts (rows filtered "Up", deflated in strips on zlib's threads).
 */
export async function cutoutPng(
  photo: { rgb: Uint8Array; width: number; height: number },
  crop: { left: number; top: number; width: number; height: number },
  alpha: Uint8Array,
  ow: number,
  oh: number,
): Promise<Buffer> {
  let pipeline = sharp(photo.rgb, { raw: { width: photo.width, height: photo.height, channels: 3 } }).extract(crop);
  if (ow !== crop.width || oh !== crop.height) pipeline = pipeline.resize(ow, oh, { fit: "fill" });
  const alphaRaw = Buffer.from(alpha.buffer, alpha.byteOffset, alpha.length);
  const rgba = await pipeline.joinChannel(alphaRaw, { raw: { width: ow, height: oh, channels: 1 } }).raw().toBuffer();
  decontaminate(rgba, ow, oh);
  return encodeRgbaPng(rgba, ow, oh);
}
