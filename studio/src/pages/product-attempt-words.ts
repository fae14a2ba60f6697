// What a cut-out attempt was asked with, in words: its frame (the API's crop) and its marks (the retry's hint: a point,
// a box, points to leave out), in English and Turkish. No DOM, so tests run it as is.
import { format, type Lang } from "../i18n/format";

export type Crop = "subject" | "none";
/** An attempt's hint as the attempts list gives it (only what is there matters here, not where). */
export type AskedHint = { point?: unknown; box?: unknown; exclude?: unknown[] } | null | undefined;

const WORDS = {
  en: {
    subject: "Around the product",
    none: "The whole photo",
    noMarks: "No marks",
    box: "A box round the product",
    onProduct: "{n} on the product",
    leaveOut: "{n} to leave out",
  },
  tr: {
    subject: "Ürünün çevresi",
    none: "Fotoğrafın tamamı",
    noMarks: "İşaret yok",
    box: "Ürünün çevresinde bir kutu",
    onProduct: "{n} ürünün üzerinde",
    leaveOut: "{n} dışarıda kalacak",
  },
} satisfies Record<Lang, Record<string, string>>;

/** The frame's name as the cut-out panel's choice says it: "Around the product" or "The whole photo". */
export function cropWords(crop: Crop, lang: Lang): string {
  return WORDS[lang][crop];
}

/**
 * The hint's marks in words, in the mark picker's own terms (product-hint.tsx): "No marks", "1 on the product",
 * "1 on the product, 2 to leave out", "A box round the product, 1 to leave out"… The API takes one point, so a hint
 * has at most one mark on the product (Studio's keep mark), and a box from the API.
 */
export function hintWords(hint: AskedHint, lang: Lang): string {
  const words = WORDS[lang];
  const parts: string[] = [];
  if (hint?.box) parts.push(words.box);
  if (hint?.point) parts.push(format(words.onProduct, { n: 1 }, lang));
  const excluded = hint?.exclude?.length ?? 0;
  if (excluded > 0) parts.push(format(words.leaveOut, { n: excluded }, lang));
  return parts.length > 0 ? parts.join(", ") : words.noMarks;
}
