// Where lines may break in scripts written without spaces: BudouX's phrases for Japanese, Chinese and Thai, so a
// line never ends in the middle of a word (pango alone breaks between any two Han or kana, and mid-word in Thai);
// elsewhere a number keeps its unit ("500 g") on its line, and a word too wide for its box is hyphenated by the
// language's TeX patterns (the hyphen package) rather than cut anywhere.

import { baseLanguage } from "../../src/plugins/renderer-kit";

type Parser = { parse(sentence: string): string[] };

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN = /\p{Script=Han}/u;
const THAI = /\p{Script=Thai}/u;

// BudouX itself (it brings linkedom, ~11-15 MB of a server's idle RSS) and its models load on first use: most videos
// never need one.
const parsers = new Map<string, Parser>();
const budoux = () => require("budoux") as typeof import("budoux");
const parserLoaders: Record<string, () => Parser> = {
  ja: () => budoux().loadDefaultJapaneseParser(),
  "zh-hans": () => budoux().loadDefaultSimplifiedChineseParser(),
  "zh-hant": () => budoux().loadDefaultTraditionalChineseParser(),
  th: () => budoux().loadDefaultThaiParser(),
};

/** What `loaders` makes for `key`, made on first asking and kept; undefined for a key it has no loader for. */
function loaded<T>(made: Map<string, T>, loaders: Record<string, () => T>, key: string): T | undefined {
  let value = made.get(key);
  if (value === undefined && loaders[key]) made.set(key, (value = loaders[key]()));
  return value;
}

/**
 * The model for a line, from its own characters first (a Turkish video may carry a Japanese product name): kana mean
 * Japanese; Han alone follows the video's language (Japanese, or Traditional/Simplified Chinese); none for the rest.
 */
function modelFor(line: string, lang: string): string | null {
  if (KANA.test(line)) return "ja";
  if (HAN.test(line)) {
    const tag = lang.toLowerCase();
    if (tag.startsWith("ja")) return "ja";
    return /^zh[-_](hant|tw|hk|mo)/.test(tag) ? "zh-hant" : "zh-hans";
  }
  if (THAI.test(line)) return "th";
  return null;
}

/**
 * A number and the unit after it ("500 g", "1,5 l", "20 %"): the space between them becomes a no-break space, so a
 * product name never ends a line on its number with the unit alone on the next.
 */
const NUMBER_UNIT = /(\d) (?=(?:mg|g|kg|ml|cl|dl|l|L|mm|cm|m|km|oz|lb|lbs|%|°C|°F|mAh|W|V|GB|TB)(?![\p{L}\p{N}]))/gu;

/** One line cut into BudouX's phrases (`phrased`), or, in other scripts, one piece with its numbers kept to their units. */
function pieceLine(line: string, lang: string): { phrased: boolean; pieces: string[] } {
  const model = modelFor(line, lang);
  return model ? { phrased: true, pieces: loaded(parsers, parserLoaders, model)!.parse(line) } : { phrased: false, pieces: [line.replace(NUMBER_UNIT, "$1\u00a0")] };
}

/** The text's lines cut into phrases that should stay on one line; a line in other scripts is one piece. */
export function phrases(text: string, lang: string): string[][] {
  return text.split("\n").map((line) => pieceLine(line, lang).pieces);
}

/**
 * Pango markup for the text in which lines break only between phrases (pango may still cut a phrase wider than
 * the whole line, with wrap "word-char").
 */
export function phraseMarkup(text: string, lang: string, escape: (s: string) => string): string {
  return phrases(text, lang)
    .map((pieces) => (pieces.length > 1 ? pieces.map((p) => `<span allow_breaks="false">${escape(p)}</span>`).join("") : escape(pieces[0] ?? "")))
    .join("\n");
}

/**
 * The pieces a line break should never cut: BudouX's phrases where a model applies, words elsewhere (a number and its
 * unit stay one piece).
 */
export function unbreakables(text: string, lang: string): string[] {
  return text
    .split("\n")
    .flatMap((line) => {
      const { phrased, pieces } = pieceLine(line, lang);
      return phrased ? pieces : pieces.flatMap((p) => p.split(/[ \t]+/));
    })
    .filter((p) => p.length > 0);
}

type Hyphenator = { hyphenateSync(text: string, options?: { hyphenChar?: string; minWordLength?: number }): string };
// Each language's patterns (12-730 KB) load on first use: most texts never need one. Static requires, so the compiled
// binary carries them.
const hyphenators = new Map<string, Hyphenator>();
const hyphenLoaders: Record<string, () => Hyphenator> = {
  en: () => require("hyphen/en-us") as Hyphenator,
  de: () => require("hyphen/de") as Hyphenator,
  fr: () => require("hyphen/fr") as Hyphenator,
  es: () => require("hyphen/es") as Hyphenator,
  tr: () => require("hyphen/tr") as Hyphenator,
};

/**
 * The words of `text` in `wide` with soft hyphens (U+00AD) at the syllable breaks the language's patterns allow, so
 * pango breaks them there with a hyphen instead of anywhere; text in a language without patterns stays as it is.
 */
export function hyphenateWords(text: string, lang: string, wide: ReadonlySet<string>): string {
  if (wide.size === 0) return text;
  const hyphenator = loaded(hyphenators, hyphenLoaders, baseLanguage(lang));
  if (!hyphenator) return text;
  return text.replace(/[^\s\u00a0]+/g, (word) => (wide.has(word) ? hyphenator.hyphenateSync(word, { hyphenChar: "\u00ad", minWordLength: 5 }) : word));
}
