// Money amounts typed by hand in the UI's language ("25,50" in Turkish, "25.50" in English), read into minor units
// without guessing: a number input drops a comma silently (25,50 became 2550), so the field is text and this reads it.
import type { Lang } from "./format";

/** What a typed amount reads as: minor units (2550 for 25.50), or why it cannot be read. */
export type ParsedAmount = { ok: true; minor: number } | { ok: false; reason: "invalid" | "ambiguous" };

/** The language's decimal and grouping separators. */
export function separators(lang: Lang): { decimal: string; group: string } {
  return lang === "tr" ? { decimal: ",", group: "." } : { decimal: ".", group: "," };
}

/** Whether `whole` is digits in groups of three after the first ("1.234.567"), with `group` between them. */
function grouped(whole: string, group: string): boolean {
  const parts = whole.split(group);
  return /^\d{1,3}$/.test(parts[0]!) && parts.slice(1).every((p) => /^\d{3}$/.test(p));
}

function minorOf(whole: string, fraction: string): ParsedAmount {
  if (!/^\d+$/.test(whole) || !/^\d{0,2}$/.test(fraction)) return { ok: false, reason: "invalid" };
  const minor = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  return Number.isSafeInteger(minor) ? { ok: true, minor } : { ok: false, reason: "invalid" };
}

/**
 * Reads an amount typed in `lang`. The language's decimal separator is taken, and a dot too (what a number pad or a
 * habit from elsewhere types); grouping is taken in the language's own form only. What could mean two amounts (a
 * Turkish "1.000": one thousand, or one with a dot for the decimals?) is refused rather than read one way.
 */
export function parseAmount(text: string, lang: Lang): ParsedAmount {
  const { decimal, group } = separators(lang);
  const s = text.replace(/[\s\u00a0\u202f₺$€£]/g, "");
  if (!/^\d[\d.,]*$/.test(s)) return { ok: false, reason: "invalid" };
  const last = Math.max(s.lastIndexOf("."), s.lastIndexOf(","));
  if (last < 0) return minorOf(s, "");
  const sep = s[last]!;
  const whole = s.slice(0, last);
  const fraction = s.slice(last + 1);
  const hasBoth = s.includes(".") && s.includes(",");
  if (hasBoth) {
    // "1.234,50" in Turkish, "1,234.50" in English: the last one must be the decimal separator, the others groups.
    if (sep !== decimal || !grouped(whole, group)) return { ok: false, reason: "ambiguous" };
    return minorOf(whole.split(group).join(""), fraction);
  }
  const count = s.split(sep).length - 1;
  if (sep === decimal) return count === 1 ? minorOf(whole, fraction) : { ok: false, reason: "invalid" };
  // `sep` is the language's grouping sign: a dot in Turkish, a comma in English.
  if (grouped(s, sep) && (count > 1 || fraction.length === 3)) {
    // One Turkish "1.000" is a thousand by the language's rules, but a dot is also taken for the decimals: ambiguous.
    // Two dots can only be groups; a comma in English is never a decimal, so "1,000" there is a thousand.
    if (sep === "." && count === 1) return { ok: false, reason: "ambiguous" };
    return minorOf(s.split(sep).join(""), "");
  }
  // A dot before one or two digits is a decimal point in any language; "25,50" in English is not an amount.
  return sep === "." && count === 1 ? minorOf(whole, fraction) : { ok: false, reason: "ambiguous" };
}

/** An amount in minor units as the language writes it in the field ("1.234,50" in Turkish), without a currency. */
export function formatAmount(minor: number, lang: Lang): string {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(minor / 100);
}
