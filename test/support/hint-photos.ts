// Composite photos for hinted cut-outs: two objects with known alpha on a textured backdrop, made with sharp at test
// time (deterministic), so a cut-out of either object can be scored by IoU against the alpha that drew it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";

export type Shape = { kind: "ellipse" | "rect"; x: number; y: number; width: number; height: number };
export type HintScene = { photo: Uint8Array; width: number; height: number; alphaOf: (name: "a" | "b") => Promise<Uint8Array>; a: Shape; b: Shape };

const photos = join(import.meta.dir, "..", "fixtures", "photos");

function svgShape(s: Shape, w: number, h: number): Buffer {
  const body =
    s.kind === "ellipse"
      ? `<ellipse cx="${s.x + s.width / 2}" cy="${s.y + s.height / 2}" rx="${s.width / 2}" ry="${s.height / 2}" fill="#fff"/>`
      : `<rect x="${s.x}" y="${s.y}" width="${s.width}" height="${s.height}" rx="${Math.round(Math.min(s.width, s.height) / 8)}" fill="#fff"/>`;
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#000"/>${body}</svg>`);
}

/** The shape's alpha, one byte a pixel, the photo's size. */
async function shapeAlpha(s: Shape, w: number, h: number): Promise<Buffer> {
  return sharp(svgShape(s, w, h)).extractChannel(0).raw().toBuffer();
}

/** A texture of the photo `name`, scaled to cover w×h. */
async function texture(name: string, w: number, h: number, tint?: { r: number; g: number; b: number }): Promise<Buffer> {
  let img = sharp(readFileSync(join(photos, name))).resize(w, h, { fit: "cover" }).removeAlpha();
  if (tint) img = img.tint(tint);
  return img.raw().toBuffer();
}

/**
 * A beige backdrop, grey noise around 200 (sigma ~8, the sum of four uniform draws) warmed by taking 14 off blue; the
 * same pixels every time (a fixed-seed generator), so the model sees the same photo in every run.
 */
function backdrop(w: number, h: number): Buffer {
  const out = Buffer.alloc(w * h * 3);
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  for (let i = 0; i < out.length; i += 3) {
    for (let c = 0; c < 3; c++) {
      const v = 200 + (next() + next() + next() + next() - 2) * 13.9 - (c === 2 ? 14 : 0);
      out[i + c] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  return out;
}

/** Pastes `fill` (RGB, w×h) over `base` where `alpha` says, in place. */
function paste(base: Buffer, fill: Buffer, alpha: Buffer) {
  for (let i = 0; i < alpha.length; i++) {
    const a = alpha[i] / 255;
    if (a === 0) continue;
    for (let c = 0; c < 3; c++) base[i * 3 + c] = Math.round(base[i * 3 + c] * (1 - a) + fill[i * 3 + c] * a);
  }
}

/**
 * Object a: a large disc of the cat photo near the middle (the salient one); object b: a smaller rounded block of the
 * coffee photo off to the side, on a noisy beige backdrop.
 */
export async function twoObjects(options: { width?: number; height?: number } = {}): Promise<HintScene> {
  const width = options.width ?? 900;
  const height = options.height ?? 600;
  const k = width / 900;
  const a: Shape = { kind: "ellipse", x: Math.round(180 * k), y: Math.round(110 * k), width: Math.round(400 * k), height: Math.round(380 * k) };
  const b: Shape = { kind: "rect", x: Math.round(640 * k), y: Math.round(200 * k), width: Math.round(200 * k), height: Math.round(240 * k) };
  const base = backdrop(width, height);
  const [alphaA, alphaB] = await Promise.all([shapeAlpha(a, width, height), shapeAlpha(b, width, height)]);
  paste(base, await texture("chelsea.jpg", width, height), alphaA);
  paste(base, await texture("coffee.jpg", width, height, { r: 60, g: 90, b: 200 }), alphaB);
  const photo = await sharp(base, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
  return {
    photo: new Uint8Array(photo),
    width,
    height,
    a,
    b,
    alphaOf: async (name) => new Uint8Array(name === "a" ? alphaA : alphaB),
  };
}

/**
 * The same cat disc, and beside it a plain card of colour `card`, a little darker than the backdrop (~200, 200, 186,
 * noisy): at the default the model takes the disc and part of the card; at 199, 199, 185 it misses the card entirely.
 */
export async function faintObject(card: [number, number, number] = [168, 158, 140]): Promise<HintScene> {
  const width = 900, height = 600;
  const a: Shape = { kind: "ellipse", x: 120, y: 110, width: 400, height: 380 };
  const b: Shape = { kind: "rect", x: 600, y: 170, width: 230, height: 280 };
  const base = backdrop(width, height);
  const [alphaA, alphaB] = await Promise.all([shapeAlpha(a, width, height), shapeAlpha(b, width, height)]);
  paste(base, await texture("chelsea.jpg", width, height), alphaA);
  const fill = Buffer.alloc(width * height * 3);
  for (let i = 0; i < fill.length; i += 3) (fill[i] = card[0]), (fill[i + 1] = card[1]), (fill[i + 2] = card[2]);
  paste(base, fill, alphaB);
  const photo = await sharp(base, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
  return { photo: new Uint8Array(photo), width, height, a, b, alphaOf: async (name) => new Uint8Array(name === "a" ? alphaA : alphaB) };
}

/** Intersection over union of two alphas (a pixel counts at alpha ≥ 128). */
export function iou(x: Uint8Array, y: Uint8Array): number {
  if (x.length !== y.length) throw new Error(`alpha sizes differ: ${x.length} vs ${y.length}`);
  let inter = 0, union = 0;
  for (let i = 0; i < x.length; i++) {
    const p = x[i] >= 128, q = y[i] >= 128;
    if (p && q) inter++;
    if (p || q) union++;
  }
  return union === 0 ? 0 : inter / union;
}

/** A cut-out's mask put back at its place (`sourceBox`) in a photo of width×height: one alpha byte a pixel. */
export async function placedAlpha(cut: { mask: Uint8Array; sourceBox?: { x: number; y: number; width: number; height: number } }, width: number, height: number): Promise<Uint8Array> {
  const box = cut.sourceBox ?? { x: 0, y: 0, width, height };
  const out = await sharp(cut.mask)
    .toColourspace("b-w")
    .resize(box.width, box.height, { fit: "fill" })
    .extend({ left: box.x, top: box.y, right: width - box.x - box.width, bottom: height - box.y - box.height, background: { r: 0, g: 0, b: 0 } })
    .extractChannel(0)
    .raw()
    .toBuffer();
  return new Uint8Array(out);
}
