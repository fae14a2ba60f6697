// Text layers: shaped by pango through sharp (right-to-left, CJK, fallback, wrapping) into transparent PNGs that fit a box.
import { baseLanguage, type TextStyle } from "../../src/plugins/renderer-kit";
import sharp from "../../src/plugins/sharp";
import { ensureFonts, familyList } from "./fonts";
import { hyphenateWords, phraseMarkup, unbreakables } from "./line-breaks";

export type { TextStyle };

/** A rendered text layer: pixels at render scale, plus its size in template pixels for layout. */
export type TextImage = {
  png: Buffer;
  width: number;
  height: number;
  /** Size in template pixels (width / scale). */
  w: number;
  h: number;
  /** The font size it was rendered at, in template pixels. */
  fontSize: number;
  lines: number;
  /** True when the text fitted only cut short with an ellipsis at the smallest size (the layout check refuses it). */
  cut?: boolean;
};

const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F]/g;

export function cleanText(text: string, lang: string, uppercase = false): string {
  let s = text.replace(CONTROL, "").replace(/[ \t]+/g, " ").trim();
  if (uppercase) s = s.toLocaleUpperCase(baseLanguage(lang));
  return s;
}

const escapeMarkup = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/'/g, "&#39;").replace(/"/g, "&quot;");

const weightName: Record<number, string> = { 400: "", 600: "Semi-Bold", 700: "Bold", 800: "Ultra-Bold", 900: "Heavy" };

/** Whether the text holds a script whose letters join (spacing them apart breaks the words). */
const JOINING = /[\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF\uFB50-\uFDFF\uFE70-\uFEFF]/;

/** Chinese, Japanese or Korean, in the text or the video's language: their figures stand as tall as the ideographs. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const liningFigures = (text: string, lang: string) => CJK.test(text) || ["ja", "zh", "ko"].includes(baseLanguage(lang));

type Drawn = { png: Buffer; width: number; height: number };

async function draw(style: TextStyle, text: string, lang: string, px: number, widthPx: number | undefined): Promise<Drawn> {
  const align = style.align ?? "start";
  // pango swaps left and right for right-to-left paragraphs itself, so "start" is always "left" here.
  const pangoAlign = align === "center" ? "centre" : align === "end" ? "right" : "left";
  const spacingEm = JOINING.test(text) ? 0 : (style.letterSpacing ?? 0);
  const attrs = [
    `foreground="${style.color ?? "#ffffff"}"`,
    // Playfair's default figures are old-style (they dip below the line), which looks broken beside kanji.
    liningFigures(text, lang) ? `font_features="lnum"` : "",
    spacingEm ? `letter_spacing="${Math.round(spacingEm * px * 1024)}"` : "",
    style.strike ? `strikethrough="true"` : "",
    // Arabic fonts reserve room for stacked marks, so their natural lines sit far apart; pull them closer.
    `line_height="${((style.lineHeight ?? 1) * (JOINING.test(text) ? 0.8 : 1)).toFixed(3)}"`,
    `lang="${baseLanguage(lang)}"`,
  ].filter(Boolean).join(" ");
  const font = `${familyList(style.font ?? "sans", baseLanguage(lang))} ${weightName[style.weight ?? 400] ?? ""}${style.italic ? " Italic" : ""} ${px.toFixed(2)}px`;
  const out = await sharp({
    text: {
      text: `<span ${attrs}>${phraseMarkup(text, lang, escapeMarkup)}</span>`,
      font: font.replace(/\s+/g, " "),
      width: widthPx ? Math.max(1, Math.floor(widthPx)) : undefined,
      align: pangoAlign,
      wrap: "word-char",
      dpi: 72,
      rgba: true,
    },
  })
    .png({ compressionLevel: 1 })
    .toBuffer({ resolveWithObject: true });
  return { png: out.data, width: out.info.width, height: out.info.height };
}

type Pieces = { px: number; width: number; widths: Map<string, number> };

/** The widest pieces a line break may not cut, drawn at `px` (their widths scale with the size): the longest few only. */
async function widestPieces(style: TextStyle, text: string, lang: string, px: number): Promise<Pieces> {
  const longest = [...new Set(unbreakables(text, lang))].sort((a, b) => [...b].length - [...a].length).slice(0, 3);
  const widths = new Map(await Promise.all(longest.map(async (piece) => [piece, (await draw(style, piece, lang, px, undefined)).width] as const)));
  return { px, width: Math.max(0, ...widths.values()), widths };
}

/** The pieces wider than the box at `px`: the ones a line must break inside. */
const tooWide = (pieces: Pieces, px: number, widthPx: number) =>
  new Set([...pieces.widths].filter(([, w]) => w * (px / pieces.px) > widthPx + 1).map(([piece]) => piece));

/**
 * Renders text at `style.size`, shrinking it until it fits `maxWidth` in at most `maxLines` lines; at the smallest
 * size, words that still do not fit are cut with an ellipsis.
 */
export async function renderTextImage(style: TextStyle, lang: string, scale: number): Promise<TextImage> {
  await ensureFonts();
  const maxLines = Math.max(1, Math.floor(style.maxLines ?? 1));
  let text = cleanText(style.text, lang, style.uppercase);
  if (!text) {
    // Nothing to draw (empty, or only control characters): an empty picture keeps layouts working.
    const png = await sharp({ create: { width: 2, height: 2, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    return { png, width: 2, height: 2, w: 2 / scale, h: 2 / scale, fontSize: style.size, lines: 0 };
  }
  const widthPx = style.maxWidth * scale;
  const minPx = Math.max(4, Math.min(style.size, style.minSize ?? style.size * 0.4) * scale);
  // Measured once, and only for text that wraps.
  let widestAt: Promise<Pieces> | null = null;

  /** The text at one size, or null when it does not fit the box. */
  const attempt = async (px: number): Promise<TextImage | null> => {
    const done = (r: Drawn, lines: number): TextImage => ({
      png: r.png, width: r.width, height: r.height, w: r.width / scale, h: r.height / scale, fontSize: px / scale, lines,
    });
    // A newline in the copy is a line break of its own: copy with more of them than the field has lines never fits.
    const firstLine = text.split("\n")[0] || text;
    if (text.split("\n").length > maxLines) return null;
    // One line at its natural width first: most short text fits so, in a single render.
    const single = await draw(style, firstLine, lang, px, undefined);
    if (firstLine === text && single.width <= widthPx) return done(single, 1);
    if (maxLines === 1) return null;
    // Above the smallest size, a size at which a word (or a Japanese phrase) is wider than the box does not fit:
    // pango would cut it anywhere ("Geschirrspül- / maschinenfes- / te"). Only at the smallest size is that the last resort.
    const pieces = await (widestAt ??= widestPieces(style, text, lang, style.size * scale));
    if (px > minPx && pieces.width * (px / pieces.px) > widthPx + 1) return null;
    // At the smallest size a word still too wide is hyphenated where its language allows ("Geschirrspül-maschinen-").
    const wrapped = await draw(style, hyphenateWords(text, lang, tooWide(pieces, px, widthPx)), lang, px, widthPx);
    if (wrapped.width > widthPx + 1) return null;
    // One line drawn twice gives this text's own line advance (scripts differ in ink height).
    const twice = await draw(style, `${firstLine}\n${firstLine}`, lang, px, undefined);
    const advance = Math.max(1, twice.height - single.height);
    const lines = 1 + Math.max(0, Math.round((wrapped.height - single.height) / advance));
    return lines <= maxLines ? done(wrapped, lines) : null;
  };

  const full = await attempt(style.size * scale);
  if (full) return full;
  for (let cuts = 0; cuts < 200; cuts++) {
    const smallest = await attempt(minPx);
    if (smallest) {
      // Fits somewhere between the smallest and the asked size: find the largest size that fits.
      let best = smallest;
      let lo = minPx;
      let hi = style.size * scale;
      while (hi - lo > Math.max(0.5, hi * 0.02)) {
        const mid = (lo + hi) / 2;
        const r = await attempt(mid);
        if (r) {
          best = r;
          lo = mid;
        } else hi = mid;
      }
      return cuts > 0 ? { ...best, cut: true } : best;
    }
    // Too long even at the smallest size: cut words (or letters) from the end.
    const words = text.replace(/…$/, "").split(/\s+/);
    const next = words.length > 1 ? `${words.slice(0, -1).join(" ")}…` : `${[...words[0]!].slice(0, -2).join("")}…`;
    if ([...next].length <= 1 || next === text) break;
    text = next;
  }
  const r = await draw(style, text, lang, minPx, widthPx);
  return { png: r.png, width: r.width, height: r.height, w: r.width / scale, h: r.height / scale, fontSize: minPx / scale, lines: maxLines, cut: true };
}
