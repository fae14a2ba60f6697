// A word wider than its text box: the text shrinks first, so no size above the smallest cuts a word (or a Japanese
// phrase) in two; at the smallest size a word that still does not fit is hyphenated where its language allows (TeX
// patterns), not cut anywhere ("Geschirrspül- / maschinenfes- / te" before).
import { describe, expect, test } from "bun:test";
import { renderTextImage } from "../plugins/renderer-ffmpeg";
import { hyphenateWords, unbreakables } from "../plugins/renderer-ffmpeg/line-breaks";

const SHY = "\u00ad";

describe("hyphenation", () => {
  test("only the words asked for get soft hyphens, at the syllables of their language", () => {
    const wide = new Set(["Geschirrspülmaschinenfeste"]);
    const out = hyphenateWords("Geschirrspülmaschinenfeste Espressotassen", "de-DE", wide);
    expect(out.split(" ")[1]).toBe("Espressotassen");
    expect(out.split(" ")[0]!.replaceAll(SHY, "")).toBe("Geschirrspülmaschinenfeste");
    expect(out.split(" ")[0]!.split(SHY)).toEqual(["Ge", "schirr", "spül", "ma", "schi", "nen", "fes", "te"]);
    // A language without patterns here is left as it is.
    expect(hyphenateWords("Geschirrspülmaschinenfeste", "ja", wide)).toBe("Geschirrspülmaschinenfeste");
  });

  test("the pieces a break may not cut: words, a number with its unit, Japanese phrases", () => {
    expect(unbreakables("Kaffee 500 g im Beutel", "de")).toEqual(["Kaffee", "500\u00a0g", "im", "Beutel"]);
    expect(unbreakables("毎日のエスプレッソを格上げ", "ja")).toEqual(["毎日の", "エスプレッソを", "格上げ"]);
  });
});

describe("fitting a word wider than the box", () => {
  const style = { size: 96, minSize: 64, maxWidth: 700, maxLines: 3, weight: 700 as const, color: "#ffffff" };

  test("the size goes down to the smallest before any word is cut", async () => {
    const de = await renderTextImage({ ...style, text: "Geschirrspülmaschinenfeste Espressotassen" }, "de", 1);
    // At 96 px it fitted in 3 lines by cutting the long word anywhere; now it shrinks to 64 px first.
    expect(de.fontSize).toBe(64);
    expect(de.cut ?? false).toBe(false);
  });

  test("words that fit the box at a size keep that size: nothing shrinks for a word that fits", async () => {
    const en = await renderTextImage({ ...style, text: "Stoneware espresso cups" }, "en", 1);
    expect(en.fontSize).toBe(96);
  });
});
