// A scene composed at a small working scale in plain memory, as the filtergraph would draw it at a moment (background
// pan, each layer's position, scale, rotation, mirroring and fade): what the readable-colour pass measures against.
import { valueAt, type Asset, type Background, type Layer } from "../../src/plugins/renderer-kit";
import sharp from "../../src/plugins/sharp";
import { visibleSpan } from "./scene/spans";

/** Working pixels per template pixel: a 1080-wide frame becomes 270 pixels, plenty for colours behind text. */
export const WORK_SCALE = 0.25;

export type Frame = { width: number; height: number; duration: number; rtl: boolean };
/** RGB pixels; `clip` (x0, y0, x1, y1) limits drawing to the part that will be read, to save the rest. */
export type Canvas = { data: Float32Array; width: number; height: number; clip?: [number, number, number, number] };
export type Picture = { data: Buffer; width: number; height: number };

/** Pictures decoded at the working scale, once per render. */
export class PictureCache {
  private cache = new Map<string, Promise<Picture>>();
  get(path: string, w: number, h: number, flip = false): Promise<Picture> {
    const width = Math.max(1, Math.round(w * WORK_SCALE));
    const height = Math.max(1, Math.round(h * WORK_SCALE));
    const key = `${path}|${width}|${height}|${flip}`;
    let p = this.cache.get(key);
    if (!p) {
      const img = sharp(path).ensureAlpha().resize(width, height, { fit: "fill" });
      if (flip) img.flop();
      p = img.raw().toBuffer().then((data) => ({ data, width, height }));
      this.cache.set(key, p);
    }
    return p;
  }

  /** Drops what is known of a file that was drawn again under the same name. */
  forget(path: string): void {
    for (const key of [...this.cache.keys()]) if (key.startsWith(`${path}|`)) this.cache.delete(key);
  }

  /** A picture made at render scale `scale` (its size in template pixels read from the file). */
  async ofScale(path: string, scale: number): Promise<Picture> {
    let size = this.sizes.get(path);
    if (!size) {
      size = sharp(path).metadata().then((m) => ({ w: (m.width ?? 1) / scale, h: (m.height ?? 1) / scale }));
      this.sizes.set(path, size);
    }
    const { w, h } = await size;
    return this.get(path, w, h);
  }
  private sizes = new Map<string, Promise<{ w: number; h: number }>>();
  /** Backgrounds already drawn, by moment ("still" for one that does not pan). */
  readonly backgrounds = new Map<string, Canvas>();
}

/** How a layer's picture lands on the frame at a moment: the inverse map from frame to picture, in template pixels. */
export type Placed = {
  opacity: number;
  /** Box on the frame (template pixels). */
  left: number;
  top: number;
  right: number;
  bottom: number;
  /** Frame point (x, y) to picture point (template px of the picture, unscaled and unrotated): u = a·x + b·y + c, v = d·x + e·y + f. */
  map: [a: number, b: number, c: number, d: number, e: number, f: number];
};

/** The same placement read in a part of the picture that starts at (dx, dy) template pixels (a glyph mask inside it). */
export const shifted = (p: Placed, dx: number, dy: number): Placed => {
  const [a, b, c, d, e, f] = p.map;
  return { ...p, map: [a, b, c - dx, d, e, f - dy] };
};

export function placeLayer(layer: Layer, t: number, frame: Frame): Placed {
  const [from, to] = visibleSpan(layer, frame.duration);
  const shown = t >= (layer.from ?? 0) && t < (layer.to ?? Infinity) && t >= from - 1e-6 && t <= to + 1e-6;
  const opacity = !shown ? 0 : layer.opacity?.length ? valueAt(layer.opacity, t) : 1;
  const mirror = frame.rtl && layer.mirror !== false;
  const s = Math.max(1e-3, valueAt(layer.scale ?? 1, t));
  const deg = valueAt(layer.rotate ?? 0, t) * (mirror ? -1 : 1);
  const { w, h } = layer.image;
  // Rotated pictures are turned inside a square as wide as their diagonal (as compile.ts does), then placed.
  const rotated = Math.abs(deg) > 1e-6;
  const bw = (rotated ? Math.hypot(w, h) : w) * s;
  const bh = (rotated ? Math.hypot(w, h) : h) * s;
  const [ax, ay] = layer.anchor ?? [0.5, 0.5];
  const X = valueAt(layer.x, t);
  const left = mirror ? frame.width - X - bw * (1 - ax) : X - bw * ax;
  const top = valueAt(layer.y, t) - bh * ay;
  const cx = left + bw / 2;
  const cy = top + bh / 2;
  const a = (deg * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  return {
    opacity,
    left,
    top,
    right: left + bw,
    bottom: top + bh,
    // u = ((x-cx)·cos + (y-cy)·sin)/s + w/2, v = (-(x-cx)·sin + (y-cy)·cos)/s + h/2
    map: [cos / s, sin / s, w / 2 - (cx * cos + cy * sin) / s, -sin / s, cos / s, h / 2 - (-cx * sin + cy * cos) / s],
  };
}

/** The background's plan (a plain picture or a panned one) and its picture at the working scale, mirrored for right-to-left. */
function backgroundPlan(bg: Background, frame: Frame, pictures: PictureCache) {
  const plan = "path" in bg ? { image: bg as Asset } : (bg as Exclude<Background, Asset>);
  const flip = frame.rtl && plan.mirror !== false;
  return { plan, flip, picture: pictures.get(plan.image.path, plan.image.w, plan.image.h, flip) };
}

/** Starts decoding the background's picture (the readable pass decodes every picture at once before it composes). */
export function prefetchBackground(bg: Background, frame: Frame, pictures: PictureCache): Promise<Picture> {
  return backgroundPlan(bg, frame, pictures).picture;
}

/** The background at a moment: its picture (mirrored for right-to-left) at its pan offset. */
export async function backgroundCanvas(bg: Background, t: number, frame: Frame, pictures: PictureCache): Promise<Canvas> {
  const { plan, flip, picture } = backgroundPlan(bg, frame, pictures);
  const pic = await picture;
  const width = Math.max(1, Math.round(frame.width * WORK_SCALE));
  const height = Math.max(1, Math.round(frame.height * WORK_SCALE));
  const panned = plan.x !== undefined || plan.y !== undefined;
  const key = panned ? String(t) : "still";
  const known = pictures.backgrounds.get(key);
  if (known) return { ...known, data: known.data.slice() };
  // Unpanned backgrounds are stretched to the frame; panned ones are cropped at their offset, as compile.ts does.
  const sx = panned ? 1 : pic.width / width;
  const sy = panned ? 1 : pic.height / height;
  let ox = panned ? valueAt(plan.x ?? 0, t) * WORK_SCALE : 0;
  const oy = panned ? Math.max(0, Math.min(pic.height - height, valueAt(plan.y ?? 0, t) * WORK_SCALE)) : 0;
  if (panned) ox = Math.max(0, Math.min(pic.width - width, flip ? pic.width - width - ox : ox));
  const data = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const py = Math.min(pic.height - 1, Math.floor(y * sy + oy));
    for (let x = 0; x < width; x++) {
      const px = Math.min(pic.width - 1, Math.floor(x * sx + ox));
      const i = (py * pic.width + px) * 4;
      const o = (y * width + x) * 3;
      data[o] = pic.data[i]!;
      data[o + 1] = pic.data[i + 1]!;
      data[o + 2] = pic.data[i + 2]!;
    }
  }
  pictures.backgrounds.set(key, { data: data.slice(), width, height });
  return { data, width, height };
}

/** Visits every canvas pixel a placed picture covers, with the picture's pixel under it (nearest neighbour). */
export function forEachCovered(
  canvas: Canvas, placed: Placed, pic: Picture, picW: number, picH: number, visit: (o: number, i: number) => void, px = WORK_SCALE,
): void {
  const [cx0, cy0, cx1, cy1] = canvas.clip ?? [0, 0, canvas.width, canvas.height];
  const x0 = Math.max(cx0, Math.floor(placed.left * px));
  const y0 = Math.max(cy0, Math.floor(placed.top * px));
  const x1 = Math.min(cx1, Math.ceil(placed.right * px));
  const y1 = Math.min(cy1, Math.ceil(placed.bottom * px));
  const fx = pic.width / picW;
  const fy = pic.height / picH;
  const [a, b, c, d, e, f] = placed.map;
  for (let y = y0; y < y1; y++) {
    const Y = (y + 0.5) / px;
    for (let x = x0; x < x1; x++) {
      const X = (x + 0.5) / px;
      const sx = Math.floor((a * X + b * Y + c) * fx);
      const sy = Math.floor((d * X + e * Y + f) * fy);
      if (sx < 0 || sy < 0 || sx >= pic.width || sy >= pic.height) continue;
      visit((y * canvas.width + x) * 3, (sy * pic.width + sx) * 4);
    }
  }
}

/** Draws a picture over the canvas where a layer puts it at a moment (alpha times the layer's fade). */
export function drawPicture(canvas: Canvas, placed: Placed, pic: Picture, picW: number, picH: number): void {
  if (placed.opacity <= 0) return;
  const d = canvas.data;
  forEachCovered(canvas, placed, pic, picW, picH, (o, i) => {
    const a = (pic.data[i + 3]! / 255) * placed.opacity;
    if (a <= 0) return;
    d[o] = d[o]! * (1 - a) + pic.data[i]! * a;
    d[o + 1] = d[o + 1]! * (1 - a) + pic.data[i + 1]! * a;
    d[o + 2] = d[o + 2]! * (1 - a) + pic.data[i + 2]! * a;
  });
}

/** A layer's picture drawn over the canvas at a moment. */
export async function drawLayer(canvas: Canvas, layer: Layer, t: number, frame: Frame, pictures: PictureCache): Promise<void> {
  const placed = placeLayer(layer, t, frame);
  if (placed.opacity <= 0) return;
  const pic = await pictures.get(layer.image.path, layer.image.w, layer.image.h);
  drawPicture(canvas, placed, pic, layer.image.w, layer.image.h);
}
