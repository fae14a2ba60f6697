// Contrast measured on a rendered frame (a PNG still of a job): for every text of the scene, its colour against the
// frame's pixels right around its glyphs, where the panel, outline, button face or scene behind it shows. For tests
// and checks of finished output; the renderer's own pass (readability.ts) measures before rendering.
import type { RenderJob } from "./prepare";
import sharp from "../../src/plugins/sharp";
import { forEachCovered, placeLayer, shifted, type Canvas, type Picture } from "./compose";
import { lowPercentile, luminance, parseColor, ratioOf, thresholdOf, type Ink } from "./contrast";
import { fullyShown } from "./readability";
import { present } from "./scene/spans";

export type TextContrast = { layer: string; text: number; color: string; ratio: number; threshold: number; pixels: number };

/**
 * How far around the glyphs (frame pixels) the pixels behind them are read: from 3 to 4 pixels away. The two pixels
 * next to a glyph may hold some of its ink: antialiasing, the overlay rounding its position to whole pixels, and the
 * video's 4:2:0 colour (one colour sample per 2×2 pixels) bleeding a saturated text's colour around it.
 */
const RING = 4;
const NEAR = 2;

async function rawPicture(path: string): Promise<Picture> {
  const { data, info } = await sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * The contrast of each text (each ink of each visible layer, button labels included) in a rendered frame of `job`
 * taken at `at` seconds: the 5th-percentile ratio between the text's colour and the frame pixels three to four pixels
 * from its glyphs. Texts not fully shown at that moment are left out.
 */
export async function frameContrast(png: Uint8Array, job: RenderJob, at: number): Promise<TextContrast[]> {
  const decoded = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const frame: Canvas = { data: Float32Array.from(decoded.data), width: decoded.info.width, height: decoded.info.height };
  const layers = present(job.scene);
  const any = layers[0]?.image ?? ("path" in job.scene.background ? job.scene.background : job.scene.background.image);
  const scale = any.width / any.w;
  const place = { width: Math.round(job.width / scale), height: Math.round(job.height / scale), duration: job.duration, rtl: job.rtl };
  const out: TextContrast[] = [];
  for (const layer of layers) {
    const times = fullyShown(layer, job.duration);
    if (!layer.image.ink?.length || times.length === 0 || at < times[0]! - 0.05 || at > times[times.length - 1]! + 0.05) continue;
    const placed = placeLayer(layer, at, place);
    for (const [index, ink] of layer.image.ink.entries()) {
      const rgb = parseColor(ink.color);
      if (!rgb) continue;
      const ring = await ringPixels(frame, placed, ink, scale);
      const lt = luminance(...rgb);
      const ratios = new Float64Array(ring.length / 3);
      for (let i = 0; i < ratios.length; i++) ratios[i] = ratioOf(lt, luminance(ring[3 * i]!, ring[3 * i + 1]!, ring[3 * i + 2]!));
      out.push({ layer: layer.name ?? "text", text: index, color: ink.color, ratio: lowPercentile(ratios), threshold: thresholdOf(ink), pixels: ratios.length });
    }
  }
  return out;
}

/** The frame pixels within RING pixels of a text's glyphs and more than NEAR from any of their ink (even a faint edge). */
async function ringPixels(frame: Canvas, placed: ReturnType<typeof placeLayer>, ink: Ink, scale: number): Promise<number[]> {
  const mask = await rawPicture(ink.mask);
  const dx = ink.left / scale;
  const dy = ink.top / scale;
  // Glyph alpha per frame pixel of the text's box (0 outside the mask).
  const alpha = new Uint8Array(frame.width * frame.height);
  const seen: number[] = [];
  forEachCovered(frame, shifted(placed, dx, dy), mask, mask.width / scale, mask.height / scale, (o, i) => {
    const p = o / 3;
    alpha[p] = Math.max(1, mask.data[i + 3]!);
    seen.push(p);
  }, scale);
  const out: number[] = [];
  for (const p of seen) {
    if (alpha[p]! > 1) continue;
    const x = p % frame.width;
    const y = (p - x) / frame.width;
    let near = false;
    let touching = false;
    for (let v = -RING; v <= RING && !touching; v++) {
      for (let u = -RING; u <= RING && !touching; u++) {
        if (x + u < 0 || x + u >= frame.width || y + v < 0 || y + v >= frame.height) continue;
        const a = alpha[(y + v) * frame.width + (x + u)]!;
        if (a >= 128) near = true;
        if (a > 1 && Math.abs(u) <= NEAR && Math.abs(v) <= NEAR) touching = true;
      }
    }
    if (near && !touching) out.push(frame.data[3 * p]!, frame.data[3 * p + 1]!, frame.data[3 * p + 2]!);
  }
  return out;
}
