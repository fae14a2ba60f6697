// Every script vitrin sets: shaped with shipped fonts (not tofu boxes), Japanese broken at phrases, serif CJK and
// Arabic in serif templates, lining figures beside kanji, emoji in colour.
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { renderTextImage } from "../plugins/renderer-ffmpeg";
import { phrases } from "../plugins/renderer-ffmpeg/line-breaks";

// Set VITRIN_TEST_KEEP_TEXT to a folder to look at the rendered text boxes.
const keep = process.env.VITRIN_TEST_KEEP_TEXT;
const draw = async (text: string, lang: string, extra: Record<string, unknown> = {}) => {
  const img = await renderTextImage({ text, size: 60, minSize: 60, maxWidth: 2000, color: "#202020", ...extra }, lang, 1);
  if (keep) {
    mkdirSync(keep, { recursive: true });
    await Bun.write(join(keep, `${lang}-${[...text].slice(0, 6).join("")}-${extra.font ?? "sans"}.png`), img.png);
  }
  return img;
};

/** The same number of characters, all unassigned: what a script without a font looks like (one box each). */
const tofu = (text: string) => [...text].map((c) => (c === " " ? " " : "\u0378")).join("");

const samples: [string, string][] = [
  ["he", "מבצע חם על ספלים"],
  ["ko", "지금 구매하세요"],
  ["th", "แก้วกาแฟเซรามิก"],
  ["hi", "अभी खरीदें"],
  ["zh", "手工陶瓷咖啡杯"],
  ["ja", "今すぐ購入"],
  ["ar", "تسوق الآن"],
];

describe("scripts", () => {
  for (const [lang, text] of samples) {
    test(`${lang} is drawn with real glyphs, not boxes`, async () => {
      const real = await draw(text, lang);
      const boxes = await draw(tofu(text), lang);
      // Every missing glyph is a box of the same width, so drawn text differs in width from its boxes.
      expect(Math.abs(real.width - boxes.width) / boxes.width).toBeGreaterThan(0.05);
    });
  }

  test("a script takes its font from its own letters, whatever the video's language", async () => {
    const inTurkish = await draw("지금 구매하세요", "tr");
    const boxes = await draw(tofu("지금 구매하세요"), "tr");
    expect(Math.abs(inTurkish.width - boxes.width) / boxes.width).toBeGreaterThan(0.05);
  });

  for (const [lang, text] of [["ja", "上質な品質"], ["ar", "جودة فاخرة"]] as const) {
    test(`serif templates set ${lang} in a serif face`, async () => {
      const serif = await draw(text, lang, { font: "serif" });
      const sans = await draw(text, lang, { font: "sans" });
      const same = serif.width === sans.width && serif.height === sans.height && serif.png.equals(sans.png);
      expect(same).toBe(false);
    });
  }
});

/** The first row with ink (alpha above half) of a text image. */
async function inkTop(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
  for (let y = 0; y < info.height; y++) for (let x = 0; x < info.width; x++) if (data[y * info.width + x]! > 128) return y;
  return info.height;
}

describe("figures", () => {
  test("figures beside Japanese are lining: as tall as capitals, even in the serif face", async () => {
    const style = { font: "serif", size: 80, minSize: 80 };
    // Kanji stand taller than both; compare the Latin parts alone by cropping the kanji away.
    const latinTop = async (text: string) => {
      const img = await draw(text, "ja", style);
      return inkTop(await sharp(img.png).extract({ left: Math.round(img.width * 0.55), top: 0, width: Math.round(img.width * 0.45), height: img.height }).png().toBuffer());
    };
    expect(Math.abs((await latinTop("価格 5000")) - (await latinTop("価格 HHHH")))).toBeLessThanOrEqual(6);
  });
});

describe("line breaks", () => {
  test("Japanese is cut into BudouX phrases, also inside a video in another language", () => {
    expect(phrases("今日は天気です。", "ja")).toEqual([["今日は", "天気です。"]]);
    expect(phrases("新しいマグカップ", "tr")).toEqual([["新しい", "マグカップ"]]);
    expect(phrases("Plain words", "ja")).toEqual([["Plain words"]]);
  });

  test("a number keeps its unit on its line: the space between them is a no-break space", () => {
    expect(phrases("Hausmischung 500 g", "de")).toEqual([["Hausmischung 500\u00a0g"]]);
    expect(phrases("Krem 50 ml, %20 indirim, 20 % off, 2 kg", "tr")).toEqual([["Krem 50\u00a0ml, %20 indirim, 20\u00a0% off, 2\u00a0kg"]]);
    // A word that only starts like a unit, and a number followed by a word, keep their ordinary space.
    expect(phrases("Set of 3 glasses, 2 large mugs", "en")).toEqual([["Set of 3 glasses, 2 large mugs"]]);
  });

  test("a line that would end on a number breaks before it, the unit staying with it", async () => {
    const style = { size: 60, minSize: 60, maxLines: 2 };
    const whole = await draw("Hausmischung 500", "de", style);
    // Room for "Hausmischung 500" but not for its " g": pango alone would leave the g alone on the second line.
    const wrapped = await draw("Hausmischung 500 g", "de", { ...style, maxWidth: whole.width + 10 });
    const byHand = await draw("Hausmischung\n500 g", "de", style);
    expect(wrapped.lines).toBe(2);
    expect(await sameInk(wrapped.png, byHand.png)).toBe(true);
  });

  test("a Japanese line breaks between phrases, not inside one", async () => {
    const style = { size: 60, minSize: 60, maxLines: 2 };
    const oneLine = await draw("今日は天気です。", "ja", style);
    // Room for five characters: pango alone would break after 天気 (「今日は天気」「です。」).
    const wrapped = await draw("今日は天気です。", "ja", { ...style, maxWidth: Math.round(oneLine.width * 5.5 / 8) });
    const byHand = await draw("今日は\n天気です。", "ja", style);
    expect(wrapped.lines).toBe(2);
    expect([wrapped.height, wrapped.png.equals(byHand.png) || (await sameInk(wrapped.png, byHand.png))]).toEqual([byHand.height, true]);
  });
});

/** Whether two text images hold the same ink, left-aligned (the wrapped one may be wider by its box). */
async function sameInk(a: Buffer, b: Buffer): Promise<boolean> {
  const ia = await sharp(a).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
  const ib = await sharp(b).extractChannel(3).raw().toBuffer({ resolveWithObject: true });
  if (ia.info.height !== ib.info.height) return false;
  const w = Math.min(ia.info.width, ib.info.width);
  let diff = 0;
  for (let y = 0; y < ia.info.height; y++) for (let x = 0; x < w; x++) diff += Math.abs(ia.data[y * ia.info.width + x]! - ib.data[y * ib.info.width + x]!);
  return diff / (w * ia.info.height) < 1;
}

describe("emoji", () => {
  test("emoji are drawn in colour, not dropped", async () => {
    const img = await draw("Sale 🔥", "en", { color: "#ffffff" });
    const { data, info } = await sharp(img.png).raw().toBuffer({ resolveWithObject: true });
    let coloured = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
      if (a > 200 && Math.max(r, g, b) - Math.min(r, g, b) > 80) coloured++;
    }
    // White text has no chroma: the coloured pixels are the flame's.
    expect(coloured).toBeGreaterThan(200);
  });
});
