// PNG reading and writing for the conformance kits, with node:zlib only, so a plugin author can run the kits without
// an image library: the header facts a kit checks, and small synthetic pictures to feed plugins.
import { crc32, deflateSync, inflateSync } from "node:zlib";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RenderProduct } from "../../src/plugins";

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

export type PngInfo = {
  width: number;
  height: number;
  bitDepth: number;
  /** PNG colour type: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA. */
  colourType: number;
  /** An alpha channel, or a tRNS chunk giving transparency to a palette or colour. */
  hasAlpha: boolean;
  greyscale: boolean;
};

/** The facts of a PNG's header chunks; throws when the bytes are not a PNG. */
export function pngInfo(bytes: Uint8Array): PngInfo {
  if (bytes.length < 33 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw new Error("not a PNG (bad signature)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = (at: number) => String.fromCharCode(...bytes.subarray(at + 4, at + 8));
  if (type(8) !== "IHDR") throw new Error("not a PNG (no IHDR first)");
  const colourType = bytes[25]!;
  let hasAlpha = colourType === 4 || colourType === 6;
  // Walk the chunks up to the image data: a tRNS before IDAT gives transparency without an alpha channel.
  for (let at = 8; at + 8 <= bytes.length; at += 12 + view.getUint32(at)) {
    if (type(at) === "IDAT") break;
    if (type(at) === "tRNS") hasAlpha = true;
  }
  return { width: view.getUint32(16), height: view.getUint32(20), bitDepth: bytes[24]!, colourType, hasAlpha, greyscale: colourType === 0 || colourType === 4 };
}

export type DecodedPng = PngInfo & {
  /** Channels per pixel in `pixels`: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA (palettes are expanded to RGB or RGBA). */
  channels: number;
  pixels: Uint8Array;
};

/** Decodes an 8-bit, non-interlaced PNG (what image libraries write by default) into row-major pixels. */
export function decodePng(bytes: Uint8Array): DecodedPng {
  const info = pngInfo(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (info.bitDepth !== 8 || bytes[28] !== 0) throw new Error(`the kit reads 8-bit non-interlaced PNGs; this one has depth ${info.bitDepth}, interlace ${bytes[28]}`);
  const idat: Uint8Array[] = [];
  let palette: Uint8Array | null = null;
  let transparency: Uint8Array | null = null;
  for (let at = 8; at + 8 <= bytes.length; at += 12 + view.getUint32(at)) {
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + view.getUint32(at));
    if (type === "IDAT") idat.push(data);
    else if (type === "PLTE") palette = data;
    else if (type === "tRNS") transparency = data;
    else if (type === "IEND") break;
  }
  const stored = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[info.colourType];
  if (!stored) throw new Error(`unknown PNG colour type ${info.colourType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = info.width * stored;
  const rows = new Uint8Array(stride * info.height);
  for (let y = 0; y < info.height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = rows.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? rows.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= stored ? out[i - stored]! : 0;
      const b = up[i]!;
      const c = i >= stored ? up[i - stored]! : 0;
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      if (predictor === undefined) throw new Error(`bad PNG filter type ${filter} in row ${y}`);
      out[i] = (line[i]! + predictor) & 0xff;
    }
  }
  if (info.colourType !== 3) return { ...info, channels: stored, pixels: rows };
  if (!palette) throw new Error("a palette PNG without PLTE");
  const channels = transparency ? 4 : 3;
  const pixels = new Uint8Array(info.width * info.height * channels);
  rows.forEach((index, i) => {
    pixels.set(palette!.subarray(index * 3, index * 3 + 3), i * channels);
    if (transparency) pixels[i * channels + 3] = index < transparency.length ? transparency[index]! : 255;
  });
  return { ...info, channels, pixels };
}

/** One value per pixel: the alpha channel (255 where there is none) or, with `grey`, the first channel. */
export function channelOf(png: DecodedPng, which: "alpha" | "grey"): Uint8Array {
  const out = new Uint8Array(png.width * png.height);
  const offset = which === "grey" ? 0 : png.channels === 2 || png.channels === 4 ? png.channels - 1 : -1;
  for (let i = 0; i < out.length; i++) out[i] = offset < 0 ? 255 : png.pixels[i * png.channels + offset]!;
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** An 8-bit PNG of `channels` (1 grey, 3 RGB, 4 RGBA) from row-major pixels. */
export function encodePng(width: number, height: number, channels: 1 | 3 | 4, pixels: Uint8Array): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header[8] = 8;
  header[9] = channels === 1 ? 0 : channels === 3 ? 2 : 6;
  const stride = width * channels;
  // Each row starts with filter type 0 (none).
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const parts = [new Uint8Array(SIGNATURE), chunk("IHDR", header), chunk("IDAT", deflateSync(raw)), chunk("IEND", new Uint8Array())];
  return new Uint8Array(Buffer.concat(parts));
}

/** A product picture: a teal rounded body with a yellow disc, in a transparent margin; and its product mask. */
export function productPixels(width = 600, height = 480): { rgba: Uint8Array; mask: Uint8Array } {
  const rgba = new Uint8Array(width * height * 4);
  const mask = new Uint8Array(width * height);
  const [bx0, bx1, by0, by1] = [width * 0.25, width * 0.75, height * 0.125, height * 0.92];
  const [cx, cy, r] = [width / 2, height * 0.42, Math.min(width, height) * 0.19];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inDisc = (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
      const inBody = x >= bx0 && x < bx1 && y >= by0 && y < by1;
      if (!inBody && !inDisc) continue;
      rgba.set(inDisc ? [233, 196, 106, 255] : [42, 157, 143, 255], i * 4);
      mask[i] = 255;
    }
  }
  return { rgba, mask };
}

/** A product as a renderer is handed it: the slot's own type. */
export type KitProduct = RenderProduct;

/** Writes a cut-out PNG (transparent around the product) and its mask into `dir`, as a render request's product. */
export function writeCutoutProduct(dir: string): KitProduct {
  mkdirSync(dir, { recursive: true });
  const [width, height] = [600, 480];
  const { rgba, mask } = productPixels(width, height);
  const imagePath = join(dir, "cutout.png");
  const maskPath = join(dir, "mask.png");
  writeFileSync(imagePath, encodePng(width, height, 4, rgba));
  writeFileSync(maskPath, encodePng(width, height, 1, mask));
  return { id: "prod_kit", name: "Teal Thermos", description: "Keeps drinks hot for 12 hours. Leak-proof lid.", imagePath, maskPath, cutout: true };
}

/** The product photographed on a warm grey backdrop, as an RGB PNG. */
export function productPhotoPng(width = 600, height = 480): Uint8Array {
  const { rgba } = productPixels(width, height);
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) {
    const a = rgba[i * 4 + 3]! / 255;
    rgb.set([0, 1, 2].map((c) => Math.round(rgba[i * 4 + c]! * a + [216, 210, 196][c]! * (1 - a))), i * 3);
  }
  return encodePng(width, height, 3, rgb);
}

/** Writes the same product as a plain photo on an opaque backdrop (no cut-out yet). */
export function writePhotoProduct(dir: string): KitProduct {
  mkdirSync(dir, { recursive: true });
  const imagePath = join(dir, "photo.png");
  writeFileSync(imagePath, productPhotoPng());
  return { id: "prod_kit_photo", name: "Photo Thermos", description: null, imagePath, maskPath: null, cutout: false };
}
