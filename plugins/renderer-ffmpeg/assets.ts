// Pictures a template builds its layers from: the product (fitted, never stretched, with shadow or glow from its
// mask), SVG drawings, buttons and merged groups; all written as PNGs at render scale into the render's folder.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { OutputInfo, OverlayOptions, Sharp } from "sharp";
import { shrinkFloor, type Asset, type ButtonOptions, type GroupOptions, type ProductAsset, type ProductImageOptions, type SoftShadow, type SvgOptions } from "../../src/plugins/renderer-kit";
import sharp from "../../src/plugins/sharp";
import { groupInks, labelInk, type PlacedItem } from "./inks";
import { renderTextImage, type TextImage } from "./text";

export type ProductSource = { imagePath: string; maskPath: string | null; cutout: boolean };

/** Writes the pictures of one render under `<workDir>/layers`, numbered so names never collide. */
export class AssetWriter {
  private n = 0;
  private ready: Promise<string> | null = null;
  constructor(
    readonly workDir: string,
    readonly scale: number,
    readonly lang: string,
    readonly rtl: boolean,
  ) {}

  private async dir(): Promise<string> {
    this.ready ??= mkdir(join(this.workDir, "layers"), { recursive: true }).then(() => join(this.workDir, "layers"));
    return this.ready;
  }

  async path(name: string): Promise<string> {
    const safe = name.replace(/[^a-z0-9-]+/gi, "-").slice(0, 40) || "layer";
    return join(await this.dir(), `${String(++this.n).padStart(2, "0")}-${safe}.png`);
  }

  async write(name: string, png: Buffer | Sharp): Promise<Asset> {
    const path = await this.path(name);
    const img = Buffer.isBuffer(png) ? sharp(png) : png;
    const info = await img.png({ compressionLevel: 1 }).toFile(path);
    return { path, width: info.width, height: info.height, w: info.width / this.scale, h: info.height / this.scale };
  }

  async text(style: Parameters<typeof renderTextImage>[0], name = "text"): Promise<Asset & { fontSize: number; lines: number; cut?: boolean }> {
    mustBeText(style.text, "ctx.text", (style as { name?: unknown }).name);
    const img = await renderTextImage(style, this.lang, this.scale);
    const path = await this.path(name);
    await Bun.write(path, img.png);
    const ink = [{ color: style.color ?? "#ffffff", size: img.fontSize, weight: style.weight ?? 400, mask: path, left: 0, top: 0 }];
    return { path, width: img.width, height: img.height, w: img.w, h: img.h, fontSize: img.fontSize, lines: img.lines, cut: img.cut, ink };
  }

  textImage(style: Parameters<typeof renderTextImage>[0]): Promise<TextImage> {
    return renderTextImage(style, this.lang, this.scale);
  }

  /**
   * An SVG drawing in template pixels, rasterised at render scale, or at `detail` of it for a backdrop (SvgOptions):
   * that picture keeps its smaller size, and the renderer stretches it to the frame in the video's own pipeline
   * (once, before the background loops); scaling it up here cost more than drawing it whole.
   */
  async svg(markup: string, w: number, h: number, name = "shape", options: SvgOptions = {}): Promise<Asset> {
    const detail = Math.min(1, Math.max(0.25, options.detail ?? 1));
    const pw = Math.max(1, Math.round(w * this.scale * detail));
    const ph = Math.max(1, Math.round(h * this.scale * detail));
    const doc = `<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none">${markup}</svg>`;
    const asset = await this.write(name, sharp(Buffer.from(doc), { density: 72 }).resize(pw, ph, { fit: "fill" }));
    if (detail < 1) this.reduced.add(asset.path);
    return { ...asset, w, h };
  }

  /** Pictures drawn at reduced detail: fit only for a scene's background (see svg). */
  readonly reduced = new Set<string>();

  /** Refuses a picture drawn at reduced detail anywhere but as the background: it would show at its smaller size. */
  checkDetail(asset: Asset, where: string): void {
    if (this.reduced.has(asset.path)) {
      throw new Error(`${where} uses a picture drawn at reduced detail (the svg option "detail"): only a scene's background may`);
    }
  }

  /** A button; `cut` tells that its label fitted only cut short (the layout check refuses it). */
  async button(o: ButtonOptions): Promise<Asset & { cut?: boolean; fontSize: number; lines: number }> {
    mustBeText(o.text, "ctx.button", o.name);
    const padX = o.paddingX ?? o.size * 1.1;
    const padY = o.paddingY ?? o.size * 0.7;
    const label = await this.textImage({
      text: o.text,
      font: o.font ?? "sans",
      weight: o.weight ?? 700,
      size: o.size,
      color: o.color,
      maxWidth: Math.max(10, o.maxWidth - 2 * padX),
      uppercase: o.uppercase,
      letterSpacing: o.letterSpacing,
      maxLines: o.maxLines,
      lineHeight: (o.maxLines ?? 1) > 1 ? 1.05 : undefined,
      align: "center",
      // A label shrinks no further than body text may (TEXT_FLOORS).
      minSize: shrinkFloor({ size: o.size, role: "body" }),
    });
    const shadow = o.shadow ? o.size * 0.5 : 0;
    const bw = label.w + 2 * padX;
    // Height from the font size, not the ink, so buttons with and without descenders are the same height.
    const bh = Math.max(label.h, label.fontSize * 0.9) + 2 * padY;
    const r = Math.min(o.radius ?? bh / 2, bh / 2);
    const W = bw + 2 * shadow;
    const H = bh + 2 * shadow + (o.shadow ? shadow * 0.4 : 0);
    const fill = o.background2 ? "url(#bg)" : o.background;
    const border = o.border ? ` stroke="${o.border.color}" stroke-width="${o.border.width}"` : "";
    const inset = o.border ? o.border.width / 2 : 0;
    const svg = `<defs>${o.background2 ? `<linearGradient id="bg" x1="0" x2="1" y1="0" y2="0"><stop offset="0" stop-color="${o.background}"/><stop offset="1" stop-color="${o.background2}"/></linearGradient>` : ""}</defs><rect x="${shadow + inset}" y="${shadow + inset}" width="${bw - 2 * inset}" height="${bh - 2 * inset}" rx="${r}" fill="${fill}"${border}/>`;
    const pw = Math.round(W * this.scale);
    const ph = Math.round(H * this.scale);
    const face = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}" viewBox="0 0 ${W} ${H}">${svg}</svg>`))
      .resize(pw, ph, { fit: "fill" })
      .png()
      .toBuffer();
    const left = Math.round((shadow + bw / 2) * this.scale - label.width / 2);
    const top = Math.round((shadow + bh / 2) * this.scale - label.height / 2);
    // The label is judged against the button's own fill; where that fails it gets an outline (readability.ts).
    const labelAt = { left: Math.max(0, left), top: Math.max(0, top) };
    const { ink, outline } = await labelInk(this, o, label, labelAt);
    const layers: OverlayOptions[] = [{ input: face, left: 0, top: 0 }, ...outline, { input: label.png, ...labelAt }];
    if (o.shadow) layers.unshift(await this.softShadow(W, H, { x: shadow, y: shadow, w: bw, h: bh, radius: r, blur: shadow / 2.5, dy: shadow * 0.4, opacity: 0.35 }));
    const asset = await this.write(o.name ?? "button", sharp({ create: { width: pw, height: ph, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).composite(layers));
    return { ...asset, cut: label.cut, ink: [ink], fontSize: label.fontSize, lines: label.lines };
  }

  async group(o: GroupOptions): Promise<Asset> {
    const pw = Math.max(1, Math.round(o.w * this.scale));
    const ph = Math.max(1, Math.round(o.h * this.scale));
    const base = o.svg
      ? sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}" viewBox="0 0 ${o.w} ${o.h}" preserveAspectRatio="none">${o.svg}</svg>`)).resize(pw, ph, { fit: "fill" })
      : sharp({ create: { width: pw, height: ph, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } });
    const drawing = await base.png().toBuffer();
    // The shadow goes under the drawing, and the items over both.
    const shadow = o.shadow ? [await this.softShadow(o.w, o.h, o.shadow)] : [];
    const placed: PlacedItem[] = [];
    for (const item of o.items) {
      this.checkDetail(item.image, `group "${o.name ?? "group"}"`);
      const [ax, ay] = item.anchor ?? [0.5, 0.5];
      const mirror = this.rtl && item.mirror !== false;
      const x = mirror ? o.w - item.x : item.x;
      const left = Math.round(x * this.scale - item.image.width * (mirror ? 1 - ax : ax));
      const top = Math.round(item.y * this.scale - item.image.height * ay);
      placed.push({ item, left, top, overlay: await clipTo(item.image, left, top, pw, ph) });
    }
    const canvas = (items: PlacedItem[]) =>
      sharp({ create: { width: pw, height: ph, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
        .composite([...shadow, { input: drawing, left: 0, top: 0 }, ...items.flatMap((p) => (p.overlay ? [p.overlay] : []))]);
    const asset = await this.write(o.name ?? "group", canvas(placed));
    return groupInks(this, o, asset, placed, canvas);
  }

  /**
   * A soft shadow of a rounded rectangle on a canvas of `w`×`h` template pixels, blurred at a quarter of the size
   * with sharp (SVG blur filters cost ten times as much at full size).
   */
  async softShadow(w: number, h: number, sh: SoftShadow): Promise<OverlayOptions> {
    const pw = Math.max(1, Math.round(w * this.scale));
    const ph = Math.max(1, Math.round(h * this.scale));
    const q = 4;
    const sw = Math.max(1, Math.round(pw / q));
    const shh = Math.max(1, Math.round(ph / q));
    const dy = sh.dy ?? 0;
    const rect = `<svg xmlns="http://www.w3.org/2000/svg" width="${sw}" height="${shh}" viewBox="0 0 ${w} ${h}" preserveAspectRatio="none"><rect x="${sh.x}" y="${sh.y + dy}" width="${sh.w}" height="${sh.h}" rx="${sh.radius}" fill="${sh.color ?? "#000000"}" fill-opacity="${sh.opacity ?? 0.3}"/></svg>`;
    const input = await sharp(Buffer.from(rect))
      .resize(sw, shh, { fit: "fill" })
      .blur(Math.max(0.3, (sh.blur * this.scale) / q))
      .resize(pw, ph, { fit: "fill", kernel: "linear" })
      .png({ compressionLevel: 1 })
      .toBuffer();
    return { input, left: 0, top: 0 };
  }

  async product(source: ProductSource, o: ProductImageOptions): Promise<ProductAsset> {
    return productImage(this, source, o);
  }
}

/** The part of a picture that falls inside a canvas (sharp refuses overlays that stick out). */
async function clipTo(image: Asset, left: number, top: number, cw: number, ch: number): Promise<OverlayOptions | null> {
  const x0 = Math.max(0, left);
  const y0 = Math.max(0, top);
  const x1 = Math.min(cw, left + image.width);
  const y1 = Math.min(ch, top + image.height);
  if (x1 <= x0 || y1 <= y0) return null;
  if (x0 === left && y0 === top && x1 - x0 === image.width && y1 - y0 === image.height) return { input: image.path, left, top };
  const part = await sharp(image.path).extract({ left: x0 - left, top: y0 - top, width: x1 - x0, height: y1 - y0 }).png().toBuffer();
  return { input: part, left: x0, top: y0 };
}

/** Bounding box of the product in a greyscale mask (values above a small threshold). */
/**
 * Refuses a text that is not a string (a number, a field left undefined) with the layer named, before pango gets it
 * ("text.replace is not a function" from deep inside the renderer says nothing to a template author).
 */
function mustBeText(text: unknown, call: string, name: unknown): void {
  if (typeof text === "string") return;
  const layer = typeof name === "string" ? `the layer "${name}"` : "a layer without a name";
  const given = text === undefined || text === null ? String(text) : `the ${typeof text} ${JSON.stringify(text) ?? String(text)}`;
  throw new Error(`${call}: the text of ${layer} must be a string, not ${given}`);
}

function maskBox(data: Buffer, width: number, height: number, channels: number): { left: number; top: number; width: number; height: number } | null {
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width * channels;
    for (let x = 0; x < width; x++) {
      if (data[row + x * channels]! > 24) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
  }
  return x1 < 0 ? null : { left: x0, top: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

/** RGBA pixels with their alpha replaced by a one-channel mask of the same size. */
function withAlpha(rgba: Buffer, alpha: Buffer): Buffer<ArrayBuffer> {
  const out = Buffer.from(rgba) as Buffer<ArrayBuffer>;
  for (let i = 0, j = 3; i < alpha.length; i++, j += 4) out[j] = alpha[i]!;
  return out;
}

function colorLayer(alpha: Buffer, width: number, height: number, color: string, opacity: number): Buffer {
  const h = color.replace("#", "");
  const r = parseInt(h.slice(0, 2), 16);
  const g = parseInt(h.slice(2, 4), 16);
  const b = parseInt(h.slice(4, 6), 16);
  const out = Buffer.alloc(width * height * 4);
  for (let i = 0, j = 0; i < alpha.length; i++, j += 4) {
    out[j] = r;
    out[j + 1] = g;
    out[j + 2] = b;
    out[j + 3] = Math.round(alpha[i]! * opacity);
  }
  return out;
}

async function productImage(w: AssetWriter, source: ProductSource, o: ProductImageOptions): Promise<ProductAsset> {
  if (!existsSync(source.imagePath)) throw new Error(`the product image does not exist: ${source.imagePath}`);
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    const img = sharp(source.imagePath, { failOn: "error" }).autoOrient().resize(1600, 1600, { fit: "inside", withoutEnlargement: true });
    // A photo that is not a cut-out but has transparent parts sits on white inside its card, not on black.
    if (!source.cutout) img.flatten({ background: "#ffffff" });
    decoded = await img
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (e) {
    throw new Error(`the product image could not be read (${source.imagePath}): ${(e as Error).message}`);
  }
  const { width: iw, height: ih } = decoded.info;
  let rgba = decoded.data;
  let mask: Buffer;
  if (source.cutout) {
    // The alpha and the stored mask are read side by side (independent libvips pipelines).
    const withMask = !!source.maskPath && existsSync(source.maskPath);
    const [alpha, stored] = await Promise.all([
      sharp(rgba, { raw: { width: iw, height: ih, channels: 4 } }).extractChannel(3).raw().toBuffer(),
      withMask ? sharp(source.maskPath!).greyscale().resize(iw, ih, { fit: "fill" }).extractChannel(0).raw().toBuffer() : null,
    ]);
    mask = stored ?? alpha;
    // A cut-out saved without transparency still gets its background removed by the mask.
    if (stored && alpha.every((v) => v === 255)) rgba = withAlpha(rgba, stored);
  } else {
    mask = Buffer.alloc(iw * ih, 255);
  }

  // Fit the product itself (not the empty margin around a cut-out) inside the box.
  const box = (source.cutout && maskBox(mask, iw, ih, 1)) || { left: 0, top: 0, width: iw, height: ih };
  const fit = Math.min((o.maxWidth * w.scale) / box.width, (o.maxHeight * w.scale) / box.height);
  const pw = Math.max(2, Math.round(box.width * fit));
  const ph = Math.max(2, Math.round(box.height * fit));
  // The picture and its shape are scaled side by side. sharp hands a resized one-channel raw image back as three
  // channels: the shape keeps one, so the shadow is the mask's shape.
  let [product, shape] = await Promise.all([
    sharp(rgba, { raw: { width: iw, height: ih, channels: 4 } }).extract(box).resize(pw, ph, { fit: "fill", kernel: "lanczos3" }).raw().toBuffer(),
    sharp(mask, { raw: { width: iw, height: ih, channels: 1 } }).extract(box).resize(pw, ph, { fit: "fill" }).extractChannel(0).raw().toBuffer(),
  ]);

  if (!source.cutout) {
    // A photo with its background: shown as a rounded card rather than a rectangle pasted on the design.
    const radius = (o.photoRadius ?? Math.min(o.maxWidth, o.maxHeight) * 0.05) * w.scale;
    shape = await sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${pw}" height="${ph}"><rect width="${pw}" height="${ph}" rx="${radius}" fill="#fff"/></svg>`))
      .extractChannel(3)
      .raw()
      .toBuffer();
    product = withAlpha(product, shape);
  }

  const size = Math.max(pw, ph);
  const shadow = o.shadow === false ? null : { opacity: 0.45, blur: 0.035, offsetY: 0.03, color: "#000000", ...(o.shadow ?? {}) };
  const glow = o.glow ? { opacity: 0.7, blur: 0.08, ...o.glow } : null;
  const shadowSigma = shadow ? shadow.blur * size : 0;
  const glowSigma = glow ? glow.blur * size : 0;
  const shadowDy = shadow ? shadow.offsetY * size : 0;
  const pad = Math.ceil(Math.max(shadow ? shadowSigma * 2.5 + shadowDy : 0, glow ? glowSigma * 2.5 : 0));
  const cw = pw + 2 * pad;
  const ch = ph + 2 * pad;
  const padded = pad > 0 ? await sharp(shape, { raw: { width: pw, height: ph, channels: 1 } }).extend({ top: pad, bottom: pad, left: pad, right: pad, background: { r: 0, g: 0, b: 0, alpha: 1 } }).extractChannel(0).raw().toBuffer() : shape;
  const layers: OverlayOptions[] = [];
  // Halo and shadow are blurred at a quarter of the size and scaled back up: they look the same and cost a sixteenth.
  const soft = async (sigma: number, color: string, opacity: number, dy: number): Promise<OverlayOptions> => {
    const q = Math.max(1, Math.min(4, Math.floor(sigma / 2)));
    const sw = Math.max(1, Math.round(cw / q));
    const sh = Math.max(1, Math.round(ch / q));
    // sharp runs resize before extend whatever the call order, so padding is its own step.
    const small = await sharp(padded, { raw: { width: cw, height: ch, channels: 1 } })
      .resize(sw, sh, { fit: "fill" })
      .blur(Math.max(0.3, sigma / q))
      .extractChannel(0)
      .raw()
      .toBuffer();
    const input = await sharp(colorLayer(small, sw, sh, color, opacity), { raw: { width: sw, height: sh, channels: 4 } })
      .resize(cw, ch, { fit: "fill", kernel: "linear" })
      .extract({ left: 0, top: 0, width: cw, height: ch - dy })
      .raw()
      .toBuffer();
    return { input, raw: { width: cw, height: ch - dy, channels: 4 }, left: 0, top: dy };
  };
  // Halo first, shadow over it, both made at once.
  const softLayers = await Promise.all([
    glow ? soft(glowSigma, glow.color, glow.opacity, 0) : null,
    shadow ? soft(shadowSigma, shadow.color, shadow.opacity, Math.round(shadowDy)) : null,
  ]);
  for (const layer of softLayers) if (layer) layers.push(layer);
  layers.push({ input: product, raw: { width: pw, height: ph, channels: 4 }, left: pad, top: pad });
  const canvas = sharp({ create: { width: cw, height: ch, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).composite(layers);
  const asset = await w.write("product", canvas);
  return { ...asset, content: { w: pw / w.scale, h: ph / w.scale } };
}
