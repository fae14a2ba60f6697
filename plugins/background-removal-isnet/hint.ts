// Hinted cut-outs: the account points at (or boxes) the object it wants, and a GrabCut graph cut seeded by the hint and
// the ISNet matte picks that object out, even when the model finds another one more salient.
import sharp from "../../src/plugins/sharp";
import type { CutoutHint, Point } from "../../src/plugins";
import { components } from "./components";
import { guidedFilter, NoProductError, type Probability } from "./cutout";
import { opencv, type CV, type Mat } from "./opencv";

/**
 * Longest side of the grid GrabCut works on. Its cost grows with the pixel count and OpenCV's wasm build is slow
 * (a 320 px photo took 1.2 s for 3 iterations on a loaded 2-core machine); the ISNet matte supplies the fine edges.
 */
export const WORK_SIDE = 200;
/** GrabCut iterations: the matte already gives good colour models, so few are needed. */
export const ITERATIONS = 2;

type Roi = { x: number; y: number; width: number; height: number };
type Seeds = { labels: Uint8Array; roi: Roi; how: string };

export type HintedMatte = { data: Float32Array; label: string; timings: Record<string, number> };

const clampInt = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(v)));

/** A region grown by `share` of its longer side on every side, clipped to the grid. */
function grow(r: Roi, share: number, mw: number, mh: number): Roi {
  const m = share * Math.max(r.width, r.height);
  const x0 = clampInt(r.x - m, 0, mw - 1);
  const y0 = clampInt(r.y - m, 0, mh - 1);
  const x1 = clampInt(r.x + r.width + m, x0 + 1, mw);
  const y1 = clampInt(r.y + r.height + m, y0 + 1, mh);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Sets `value` on the ROI-local labels in a disc around grid point `c`. */
function disc(labels: Uint8Array, roi: Roi, c: Point, radius: number, value: number) {
  const r2 = radius * radius;
  for (let y = Math.max(roi.y, Math.floor(c.y - radius)); y <= Math.min(roi.y + roi.height - 1, Math.ceil(c.y + radius)); y++) {
    for (let x = Math.max(roi.x, Math.floor(c.x - radius)); x <= Math.min(roi.x + roi.width - 1, Math.ceil(c.x + radius)); x++) {
      if ((x - c.x) ** 2 + (y - c.y) ** 2 <= r2) labels[(y - roi.y) * roi.width + (x - roi.x)] = value;
    }
  }
}

/** The matte's object under grid point `c`, or the nearest one within `radius` (0: none). */
function componentAt(labels: Int32Array, mw: number, mh: number, c: Point, radius: number): number {
  let best = 0, bestD = Infinity;
  for (let y = Math.max(0, Math.floor(c.y - radius)); y <= Math.min(mh - 1, Math.ceil(c.y + radius)); y++) {
    for (let x = Math.max(0, Math.floor(c.x - radius)); x <= Math.min(mw - 1, Math.ceil(c.x + radius)); x++) {
      const l = labels[y * mw + x];
      const d = (x - c.x) ** 2 + (y - c.y) ** 2;
      if (l !== 0 && d <= radius * radius && d < bestD) (best = l), (bestD = d);
    }
  }
  return best;
}

/**
 * GrabCut's starting labels on the model grid (hint already in grid pixels): a box makes everything outside it sure
 * background and its inside probable foreground, save the matte's objects that lie mostly outside it; a point makes the
 * matte's object under it probable foreground (its faint response at 0.1, else a disc round the point, when the matte
 * saw nothing there) and every other object probable background; excluded points are discs of sure background, and
 * excluded points alone drop the matte's objects under them.
 */
export function seedLabels(cv: CV, prob: Probability, hint: CutoutHint): Seeds {
  const { data: p, width: mw, height: mh } = prob;
  const comps = components(p, mw, mh, 0.5);
  const side = Math.min(mw, mh);
  let roi: Roi = { x: 0, y: 0, width: mw, height: mh };
  let how = "salient objects";
  let fg = (i: number, x: number, y: number): number => (comps.labels[i] !== 0 ? cv.GC_PR_FGD : cv.GC_PR_BGD);
  const point = hint.point;
  let hit = 0;
  if (hint.box) {
    const b = hint.box;
    roi = grow(b, 0.1, mw, mh);
    // The share of each matte object inside the box: one mostly outside it is the object the hint is not about.
    const inside = new Float64Array(comps.areas.length);
    for (let y = b.y; y < b.y + b.height; y++) for (let x = b.x; x < b.x + b.width; x++) inside[comps.labels[y * mw + x]]++;
    const inBox = (x: number, y: number) => x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height;
    fg = (i, x, y) => {
      if (!inBox(x, y)) return cv.GC_BGD;
      const l = comps.labels[i];
      return l !== 0 && inside[l] < 0.5 * comps.areas[l] ? cv.GC_PR_BGD : cv.GC_PR_FGD;
    };
    how = "box";
  } else if (point) {
    hit = componentAt(comps.labels, mw, mh, point, 0.02 * side);
    // The model may have seen the object only faintly: its weaker response (0.1) names the region then.
    const faint = hit ? null : components(p, mw, mh, 0.1);
    const under = faint ? componentAt(faint.labels, mw, mh, point, 0.02 * side) : 0;
    const region = hit ? { c: comps, id: hit } : under ? { c: faint!, id: under } : null;
    if (region) {
      const [x0, y0, x1, y1] = region.c.boxes[region.id];
      roi = grow({ x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 }, 0.15, mw, mh);
      fg = (i) => (region.c.labels[i] === region.id ? cv.GC_PR_FGD : cv.GC_PR_BGD);
      hit = region.id;
    } else {
      // The matte saw nothing under the point: a region round it, left to the colours to settle.
      const r = 0.2 * side;
      roi = grow({ x: point.x - r, y: point.y - r, width: 2 * r, height: 2 * r }, 0.25, mw, mh);
      fg = () => cv.GC_PR_BGD;
    }
    how = "point";
  } else if (hint.exclude?.length) {
    // Only points to leave out: the salient objects, less the ones under those points.
    const dropped = new Set(hint.exclude.map((e) => componentAt(comps.labels, mw, mh, e, 0.02 * side)));
    fg = (i) => (comps.labels[i] !== 0 && !dropped.has(comps.labels[i]) ? cv.GC_PR_FGD : cv.GC_PR_BGD);
  }
  const labels = new Uint8Array(roi.width * roi.height);
  for (let y = 0; y < roi.height; y++) {
    for (let x = 0; x < roi.width; x++) labels[y * roi.width + x] = fg((roi.y + y) * mw + roi.x + x, roi.x + x, roi.y + y);
  }
  const dot = Math.max(2, 0.012 * Math.max(roi.width, roi.height));
  if (point && !hint.box && !hit) disc(labels, roi, point, 0.08 * side, cv.GC_PR_FGD);
  if (point) disc(labels, roi, point, dot, cv.GC_FGD);
  for (const e of hint.exclude ?? []) disc(labels, roi, e, dot * 1.5, cv.GC_BGD);
  return { labels, roi, how };
}

/** Resizes the photo's RGB grid (bilinear). */
async function resizeRgb(data: Uint8Array, w: number, h: number, ow: number, oh: number): Promise<Uint8Array> {
  if (w === ow && h === oh) return data;
  const out = await sharp(Buffer.from(data.buffer, data.byteOffset, data.length), { raw: { width: w, height: h, channels: 3 } })
    .resize(ow, oh, { fit: "fill", kernel: "linear" })
    .raw()
    .toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/** Resizes a one-byte-a-pixel grid: nearest for labels, bilinear for a mask. */
function resizeGrid(src: Uint8Array, w: number, h: number, ow: number, oh: number, nearest: boolean): Uint8Array {
  if (w === ow && h === oh) return src;
  const out = new Uint8Array(ow * oh);
  const fx = w / ow, fy = h / oh;
  for (let y = 0; y < oh; y++) {
    const v = Math.min(h - 1, Math.max(0, (y + 0.5) * fy - 0.5));
    const y0 = nearest ? Math.min(h - 1, Math.floor((y + 0.5) * fy)) : Math.floor(v);
    const y1 = Math.min(h - 1, y0 + 1);
    const wy = v - Math.floor(v);
    for (let x = 0; x < ow; x++) {
      if (nearest) {
        out[y * ow + x] = src[y0 * w + Math.min(w - 1, Math.floor((x + 0.5) * fx))];
        continue;
      }
      const u = Math.min(w - 1, Math.max(0, (x + 0.5) * fx - 0.5));
      const x0 = Math.floor(u);
      const x1 = Math.min(w - 1, x0 + 1);
      const wx = u - x0;
      const top = src[y0 * w + x0] + (src[y0 * w + x1] - src[y0 * w + x0]) * wx;
      const bot = src[y1 * w + x0] + (src[y1 * w + x1] - src[y1 * w + x0]) * wx;
      out[y * ow + x] = Math.round(top + (bot - top) * wy);
    }
  }
  return out;
}

/** The ROI's part of a raw RGB grid. */
function cropRgb(rgb: Uint8Array, mw: number, roi: Roi): Uint8Array {
  const out = new Uint8Array(roi.width * roi.height * 3);
  for (let y = 0; y < roi.height; y++) {
    const from = ((roi.y + y) * mw + roi.x) * 3;
    out.set(rgb.subarray(from, from + roi.width * 3), y * roi.width * 3);
  }
  return out;
}

/** GrabCut on the working grid: 255 where it settles on foreground, 0 elsewhere. */
function graphCut(cv: CV, rgb: Uint8Array, labels: Uint8Array, w: number, h: number): Uint8Array {
  let fgSeeds = 0, bgSeeds = 0;
  for (const l of labels) l === cv.GC_FGD || l === cv.GC_PR_FGD ? fgSeeds++ : bgSeeds++;
  // Nothing left to cut out (exclude points alone, over the only objects there were) is the account's "no subject".
  if (fgSeeds === 0) throw new NoProductError("No object found under the hint: it leaves nothing to cut out. Mark the product with a point or a box round it.");
  if (bgSeeds === 0) throw new Error("the hint leaves no background to learn colours from");
  const img = new cv.Mat(h, w, cv.CV_8UC3);
  const mask = new cv.Mat(h, w, cv.CV_8UC1);
  const bgd = new cv.Mat();
  const fgd = new cv.Mat();
  try {
    img.data.set(rgb);
    mask.data.set(labels);
    cv.grabCut(img, mask, new cv.Rect(0, 0, w, h), bgd, fgd, ITERATIONS, cv.GC_INIT_WITH_MASK);
    const out = new Uint8Array(w * h);
    const m = mask.data;
    for (let i = 0; i < out.length; i++) out[i] = m[i] === cv.GC_FGD || m[i] === cv.GC_PR_FGD ? 255 : 0;
    return out;
  } finally {
    img.delete();
    mask.delete();
    bgd.delete();
    fgd.delete();
  }
}

/**
 * The new matte on the model grid: the graph cut, scaled up and snapped to the photo's edges (guided filter), and the
 * ISNet matte itself wherever the two agree, so the object keeps the model's fine edges; nothing outside the ROI.
 */
function combine(prob: Probability, guide: Uint8Array, cut: Uint8Array, roi: Roi): Float32Array {
  const { data: p, width: mw } = prob;
  const n = roi.width * roi.height;
  const g = new Float32Array(n);
  for (let i = 0; i < n; i++) g[i] = cut[i] / 255;
  const radius = Math.max(2, Math.round(Math.max(roi.width, roi.height) / 100));
  const snapped = guidedFilter(cropRgb(guide, mw, roi), g, roi.width, roi.height, radius, 1e-3);
  const out = new Float32Array(p.length);
  for (let y = 0; y < roi.height; y++) {
    for (let x = 0; x < roi.width; x++) {
      const j = y * roi.width + x;
      const i = (roi.y + y) * mw + roi.x + x;
      out[i] = Math.abs(p[i] - snapped[j]) < 0.35 ? p[i] : snapped[j];
    }
  }
  return out;
}

/** A hint in photo pixels, in the model grid's pixels. */
export function hintOnGrid(hint: CutoutHint, sx: number, sy: number, mw: number, mh: number): CutoutHint {
  const pt = (q: Point): Point => ({ x: Math.min(mw - 1, q.x * sx), y: Math.min(mh - 1, q.y * sy) });
  const out: CutoutHint = {};
  if (hint.point) out.point = pt(hint.point);
  if (hint.box) {
    const x = clampInt(hint.box.x * sx, 0, mw - 1);
    const y = clampInt(hint.box.y * sy, 0, mh - 1);
    out.box = { x, y, width: clampInt(hint.box.width * sx, 1, mw - x), height: clampInt(hint.box.height * sy, 1, mh - y) };
  }
  if (hint.exclude) out.exclude = hint.exclude.map(pt);
  return out;
}

/** Words for the attempt's method: what the hint was, in the photo's pixels. */
export function describeHint(hint: CutoutHint): string {
  const parts: string[] = [];
  if (hint.point) parts.push(`point (${hint.point.x}, ${hint.point.y})`);
  if (hint.box) parts.push(`box ${hint.box.width}×${hint.box.height} at (${hint.box.x}, ${hint.box.y})`);
  if (hint.exclude?.length) parts.push(`${hint.exclude.length} excluded point${hint.exclude.length > 1 ? "s" : ""}`);
  return parts.join(", ");
}

/** The ISNet matte steered by `hint` (given in grid pixels): the object it names, at the model grid's size. */
export async function hintedMatte(prob: Probability, hint: CutoutHint): Promise<HintedMatte> {
  const t0 = performance.now();
  const { cv } = await opencv();
  const t1 = performance.now();
  const guide = await prob.guide();
  const { labels, roi, how } = seedLabels(cv, prob, hint);
  const scale = Math.min(1, WORK_SIDE / Math.max(roi.width, roi.height));
  const ww = Math.max(8, Math.round(roi.width * scale));
  const wh = Math.max(8, Math.round(roi.height * scale));
  const rgb = await resizeRgb(cropRgb(guide, prob.width, roi), roi.width, roi.height, ww, wh);
  const small = resizeGrid(labels, roi.width, roi.height, ww, wh, true);
  const t2 = performance.now();
  const cut = graphCut(cv, rgb, small, ww, wh);
  const t3 = performance.now();
  const big = resizeGrid(cut, ww, wh, roi.width, roi.height, false);
  const data = combine(prob, guide, big, roi);
  const t4 = performance.now();
  const ms = Math.round;
  return {
    data,
    label: `GrabCut seeded by the ${how} and the ISNet matte (${ITERATIONS} iterations at ${ww}×${wh}), edges from the matte`,
    timings: { opencv_load_ms: ms(t1 - t0), hint_seed_ms: ms(t2 - t1), grabcut_ms: ms(t3 - t2), hint_matte_ms: ms(t4 - t3) },
  };
}
