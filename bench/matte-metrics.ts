// Edge-quality measures for cut-outs against composites with known alpha (test/fixtures/composites): IoU, boundary
// F-score, thin-part recall and fringe (how far the shown edge colours are from the true foreground colour).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";

export const COMPOSITES_DIR = join(import.meta.dir, "..", "test", "fixtures", "composites");
/** Boundary pixels count as matched within this many pixels (chessboard distance). */
export const BOUNDARY_TOLERANCE = 3;
/** The fringe is measured this many pixels either side of the true boundary, plus wherever the true alpha is partial. */
export const FRINGE_BAND = 3;
/** Parts of the true mask narrower than 2·THIN_RADIUS+1 px (what an opening with that square removes) are "thin". */
export const THIN_RADIUS = 5;

export type Composite = {
  file: string;
  background: string;
  width: number;
  height: number;
  /** The composite as stored (JPEG), what a background remover is given. */
  bytes: Uint8Array;
  /** The composite decoded, RGB. */
  rgb: Uint8Array;
  /** The true alpha and the true foreground colour (RGB), full frame. */
  alpha: Uint8Array;
  fg: Uint8Array;
};

/** A cut-out placed back on the composite's frame: alpha and colour per pixel (alpha 0 outside the cut-out). */
export type Frame = { alpha: Uint8Array; rgb: Uint8Array };

/** thinRecall is NaN when the true mask has no thin parts. */
export type EdgeScores = { iou: number; boundaryF: number; thinRecall: number; fringe: number };

export async function loadComposites(dir = COMPOSITES_DIR): Promise<Composite[]> {
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { file: string; object: string; background: string }[];
  return Promise.all(
    manifest.map(async (entry) => {
      const bytes = new Uint8Array(readFileSync(join(dir, entry.file)));
      const photo = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const obj = await sharp(join(dir, entry.object)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const n = obj.info.width * obj.info.height;
      const alpha = new Uint8Array(n);
      const fg = new Uint8Array(n * 3);
      for (let i = 0; i < n; i++) {
        alpha[i] = obj.data[i * 4 + 3];
        for (let c = 0; c < 3; c++) fg[i * 3 + c] = obj.data[i * 4 + c];
      }
      return { file: entry.file, background: entry.background, width: photo.info.width, height: photo.info.height, bytes, rgb: new Uint8Array(photo.data), alpha, fg };
    }),
  );
}

/** An RGBA image the size of the frame (a remover that keeps the whole photo), split into alpha and colour. */
export async function frameOf(rgba: Uint8Array | Buffer, width: number, height: number): Promise<Frame> {
  const n = width * height;
  if (rgba.length !== n * 4) throw new Error(`expected ${width}×${height} RGBA, got ${rgba.length} bytes`);
  const alpha = new Uint8Array(n);
  const rgb = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    alpha[i] = rgba[i * 4 + 3];
    for (let c = 0; c < 3; c++) rgb[i * 3 + c] = rgba[i * 4 + c];
  }
  return { alpha, rgb };
}

/** A cropped cut-out PNG put back where it came from (`box`, in the photo's pixels), scaled to the box if it was shrunk. */
export async function placeCutout(png: Uint8Array, box: { x: number; y: number; width: number; height: number }, width: number, height: number): Promise<Frame> {
  let img = sharp(png).ensureAlpha();
  const meta = await sharp(png).metadata();
  if (meta.width !== box.width || meta.height !== box.height) img = img.resize(box.width, box.height, { fit: "fill" });
  const crop = await img.raw().toBuffer();
  const full = new Uint8Array(width * height * 4);
  for (let y = 0; y < box.height; y++) {
    const from = y * box.width * 4;
    full.set(crop.subarray(from, from + box.width * 4), ((box.y + y) * width + box.x) * 4);
  }
  return frameOf(full, width, height);
}

const maskOf = (alpha: Uint8Array) => {
  const m = new Uint8Array(alpha.length);
  for (let i = 0; i < alpha.length; i++) m[i] = alpha[i] >= 128 ? 1 : 0;
  return m;
};

/** Pixels of the mask with a 4-neighbour outside it (the frame's border counts as outside). */
function boundary(m: Uint8Array, w: number, h: number): Uint8Array {
  const b = new Uint8Array(m.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!m[i]) continue;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1 || !m[i - 1] || !m[i + 1] || !m[i - w] || !m[i + w]) b[i] = 1;
    }
  }
  return b;
}

/** Maximum (grow) or minimum (shrink) over a (2r+1)² square, in two separable passes. */
function square(m: Uint8Array, w: number, h: number, r: number, grow: boolean): Uint8Array {
  const tmp = new Uint8Array(m.length);
  const out = new Uint8Array(m.length);
  const pick = grow ? 1 : 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = 1 - pick;
      for (let d = -r; d <= r && v !== pick; d++) {
        const xx = x + d;
        // Outside the frame counts as background, so shrinking eats parts touching the border.
        const s = xx < 0 || xx >= w ? 0 : m[y * w + xx];
        if (s === pick) v = pick;
      }
      tmp[y * w + x] = v;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = 1 - pick;
      for (let d = -r; d <= r && v !== pick; d++) {
        const yy = y + d;
        const s = yy < 0 || yy >= h ? 0 : tmp[yy * w + x];
        if (s === pick) v = pick;
      }
      out[y * w + x] = v;
    }
  }
  return out;
}

/** The true mask's thin parts: what an opening with a (2·THIN_RADIUS+1)² square removes, less 2 px next to what it keeps. */
export function thinParts(alpha: Uint8Array, w: number, h: number): Uint8Array {
  const m = maskOf(alpha);
  const opened = square(square(m, w, h, THIN_RADIUS, false), w, h, THIN_RADIUS, true);
  const near = square(opened, w, h, 2, true);
  const thin = new Uint8Array(m.length);
  for (let i = 0; i < m.length; i++) thin[i] = m[i] && !near[i] ? 1 : 0;
  return thin;
}

/** Shown edge colour against the true foreground colour: the alpha-weighted mean RGB distance (0–441) over the band. */
export function fringe(c: Composite, alpha: Uint8Array, rgb: Uint8Array): number {
  const { width: w, height: h } = c;
  const band = square(boundary(maskOf(c.alpha), w, h), w, h, FRINGE_BAND, true);
  let sum = 0;
  let weight = 0;
  for (let i = 0; i < w * h; i++) {
    if (!band[i] && (c.alpha[i] === 0 || c.alpha[i] === 255)) continue;
    const a = alpha[i] / 255;
    if (a === 0) continue;
    const dr = rgb[i * 3] - c.fg[i * 3], dg = rgb[i * 3 + 1] - c.fg[i * 3 + 1], db = rgb[i * 3 + 2] - c.fg[i * 3 + 2];
    sum += a * Math.sqrt(dr * dr + dg * dg + db * db);
    weight += a;
  }
  return weight === 0 ? 0 : sum / weight;
}

export function scoreEdges(c: Composite, pred: Frame): EdgeScores {
  const { width: w, height: h } = c;
  const truth = maskOf(c.alpha);
  const mine = maskOf(pred.alpha);
  let inter = 0, union = 0;
  for (let i = 0; i < truth.length; i++) (inter += truth[i] & mine[i]), (union += truth[i] | mine[i]);
  const bt = boundary(truth, w, h);
  const bp = boundary(mine, w, h);
  const nearT = square(bt, w, h, BOUNDARY_TOLERANCE, true);
  const nearP = square(bp, w, h, BOUNDARY_TOLERANCE, true);
  let bpCount = 0, bpHit = 0, btCount = 0, btHit = 0;
  for (let i = 0; i < bt.length; i++) {
    if (bp[i]) (bpCount++, (bpHit += nearT[i]));
    if (bt[i]) (btCount++, (btHit += nearP[i]));
  }
  const precision = bpCount ? bpHit / bpCount : 0;
  const recall = btCount ? btHit / btCount : 0;
  const thin = thinParts(c.alpha, w, h);
  let thinCount = 0, thinKept = 0;
  for (let i = 0; i < thin.length; i++) if (thin[i]) (thinCount++, (thinKept += mine[i]));
  return {
    iou: union ? inter / union : 1,
    boundaryF: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    thinRecall: thinCount ? thinKept / thinCount : NaN,
    fringe: fringe(c, pred.alpha, pred.rgb),
  };
}

export function meanScores(list: EdgeScores[]): EdgeScores {
  // A composite without thin parts has no thin-part recall (NaN) and is left out of that mean.
  const mean = (k: keyof EdgeScores) => {
    const values = list.map((e) => e[k]).filter((v) => !Number.isNaN(v));
    return values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
  };
  return { iou: mean("iou"), boundaryF: mean("boundaryF"), thinRecall: mean("thinRecall"), fringe: mean("fringe") };
}
