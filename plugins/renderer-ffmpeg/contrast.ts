// WCAG contrast arithmetic for the readable-colour pass: colours, luminance, the threshold a text must reach, and the
// contrast of text against pixels (a worst-part percentile, since the mean hides the part of a word that is lost).
import type { Asset } from "../../src/plugins/renderer-kit";

export type Ink = NonNullable<Asset["ink"]>[number];
export type Rgb = [number, number, number];

/** WCAG AA: 4.5:1 for text, 3:1 for large text. */
export const AA_TEXT = 4.5;
export const AA_LARGE = 3;

/**
 * Large text in template pixels of a frame whose short side is 1080 (every format here). A 1080-wide video fills a
 * phone about 390 CSS pixels wide, so one template pixel shows as 0.36 CSS pixels: WCAG's large text (24 CSS px, or
 * 18.66 CSS px bold) is 66 template pixels, or 52 at weight 700 and above, which is also about the headline floor.
 */
export const LARGE_PX = 66;
export const LARGE_BOLD_PX = 52;

/** Which pixels count: the 5th percentile of the per-pixel ratios, so a few antialiased pixels do not decide. */
export const PERCENTILE = 0.05;

/**
 * The renderer fixes a text below its threshold times DECIDE: the video's 4:2:0 colour bleeds a saturated text's
 * colour into the pixels around it (a red label on white lost 13 % right next to its glyphs at half size).
 */
export const DECIDE = 1.1;

export function isLarge(size: number, weight: number): boolean {
  return size >= LARGE_PX || (weight >= 700 && size >= LARGE_BOLD_PX);
}

export const thresholdOf = (ink: Pick<Ink, "size" | "weight">): number => (isLarge(ink.size, ink.weight) ? AA_LARGE : AA_TEXT);

/** `#rgb` or `#rrggbb` (what templates and the API's colour fields hold); null for anything else. */
export function parseColor(color: string): Rgb | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m) return null;
  const h = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join("") : m[1]!;
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

/** sRGB channel value (0–255) to linear light, as a table. */
const LINEAR = Float64Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

/** Relative luminance of an sRGB colour with channels 0–255 (fractions allowed: blends are rounded). */
export function luminance(r: number, g: number, b: number): number {
  const at = (v: number) => LINEAR[Math.max(0, Math.min(255, Math.round(v)))]!;
  return 0.2126 * at(r) + 0.7152 * at(g) + 0.0722 * at(b);
}

export const ratioOf = (l1: number, l2: number): number => (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);

export function colorRatio(a: string, b: string): number {
  const x = parseColor(a);
  const y = parseColor(b);
  if (!x || !y) return 21;
  return ratioOf(luminance(...x), luminance(...y));
}

/** Black or white, whichever stands further from a colour (an opaque panel of it always reaches 4.5:1). */
export function farthestOf(color: string): "#000000" | "#ffffff" {
  return colorRatio(color, "#000000") >= colorRatio(color, "#ffffff") ? "#000000" : "#ffffff";
}

/** The `PERCENTILE` of a list of ratios (the list is sorted in place); Infinity when there are none. */
export function lowPercentile(ratios: Float64Array | number[]): number {
  if (ratios.length === 0) return Infinity;
  const sorted = ratios instanceof Float64Array ? ratios.sort() : ratios.sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * PERCENTILE))]!;
}

/** Pixels behind a text (RGB, 0–255, three numbers each), as gathered under its glyphs. */
export type Behind = Float64Array;

/** The contrast of a text colour against pixels, optionally under a panel of `panel` colour at `alpha` opacity. */
export function contrastOver(text: Rgb, behind: Behind, panel?: Rgb, alpha = 0): number {
  const lt = luminance(...text);
  const n = behind.length / 3;
  const ratios = new Float64Array(n);
  const a = panel ? alpha : 0;
  const [pr, pg, pb] = panel ?? [0, 0, 0];
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    const r = behind[j]! * (1 - a) + pr * a;
    const g = behind[j + 1]! * (1 - a) + pg * a;
    const b = behind[j + 2]! * (1 - a) + pb * a;
    ratios[i] = ratioOf(lt, luminance(r, g, b));
  }
  return lowPercentile(ratios);
}

/**
 * The lowest opacity of a panel colour under which the text reaches `target` on these pixels (blending as the
 * overlay does, in gamma-encoded values); 1 when only an opaque panel comes close.
 */
export function panelOpacity(text: Rgb, behind: Behind, panel: Rgb, target: number): number {
  if (contrastOver(text, behind, panel, 1) < target) return 1;
  let lo = 0;
  let hi = 1;
  for (let k = 0; k < 10; k++) {
    const mid = (lo + hi) / 2;
    if (contrastOver(text, behind, panel, mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}
