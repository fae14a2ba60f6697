// A template's prompt_schema read as a form: which control each field needs, its label, and the user_prompt the
// form's values make (plain TypeScript, no DOM, so tests run it outside a browser).
import type { Lang } from "../i18n/format";

export type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  description?: string;
  title?: string;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
};

/** Field values by path ("headline", "colors.primary"); lists as one line each, yes/no as "true" or "". */
export type Values = Record<string, string>;

/** Turkish names of the fields the built-in templates use; other fields show their own name made readable. */
const TR_NAMES: Record<string, string> = {
  headline: "Başlık",
  subheadline: "Alt başlık",
  price: "Fiyat",
  old_price: "Eski fiyat",
  currency: "Para birimi",
  call_to_action: "Düğme metni",
  colors: "Renkler",
  features: "Özellikler",
  primary: "Ana renk",
  accent: "Vurgu rengi",
  background: "Arka plan",
  text: "Metin rengi",
};

/** English names where the field's own name reads as code: the colours of the group, and the button's words. */
const EN_NAMES: Record<string, string> = {
  call_to_action: "Button text",
  colors: "Colours",
  primary: "Main colour",
  accent: "Accent colour",
  text: "Text colour",
};

/**
 * Turkish for the built-in templates' field descriptions, matched on the exact English text, so a template's own
 * description (or a changed one) shows as written rather than a wrong translation.
 */
const TR_DESCRIPTIONS: Record<string, string> = {
  "Main line; defaults to the product name.": "Ana satır; boş bırakılırsa ürünün adı.",
  "Second line; defaults to the first sentence of the description.": "İkinci satır; boş bırakılırsa açıklamanın ilk cümlesi.",
  "A number (formatted in the video's language and currency) or text shown as is.":
    "Bir sayı (videonun diline ve para birimine göre biçimlendirilir) ya da olduğu gibi gösterilen bir metin.",
  "The price before the discount, shown struck through; like the price, a number or text.":
    "İndirimden önceki fiyat, üstü çizili gösterilir; fiyat gibi bir sayı ya da metin.",
  "ISO 4217 code; defaults by language (USD, TRY, EUR, JPY, SAR).": "ISO 4217 kodu; boş bırakılırsa dile göre (USD, TRY, EUR, JPY, SAR).",
  'Button text; defaults to "Shop now" in the video\'s language.': "Düğme metni; boş bırakılırsa videonun dilinde \"Hemen al\".",
  'Button text; defaults to "Discover" in the video\'s language.': "Düğme metni; boş bırakılırsa videonun dilinde \"Keşfet\".",
  "Brand colours as #rrggbb.": "Markanızın renkleri.",
  "Short selling points; default to phrases from the description.": "Öne çıkan kısa özellikler; boş bırakılırsa açıklamadan alınan ifadeler.",
};

/** English descriptions written for the API's readers, said plainly for a shop owner (each colour has a picker). */
const EN_DESCRIPTIONS: Record<string, string> = {
  "Brand colours as #rrggbb.": "Your brand's colours.",
};

export function fieldDescription(schema: Schema, lang: Lang): string | undefined {
  if (!schema.description) return undefined;
  const plain = lang === "tr" ? TR_DESCRIPTIONS : EN_DESCRIPTIONS;
  return plain[schema.description] ?? schema.description;
}

/** The colours of fields.colors(), named as colours only where they are ones (a template's own `text` is words). */
const COLOUR_FIELDS = new Set(["primary", "accent", "background", "text"]);

export function fieldLabel(name: string, schema: Schema, lang: Lang): string {
  const named = !COLOUR_FIELDS.has(name) || schema.pattern === "^#[0-9a-fA-F]{6}$";
  if (named && lang === "tr" && TR_NAMES[name]) return TR_NAMES[name];
  // A template's own title (in English) wins over the English names given the shared fields.
  if (schema.title) return schema.title;
  if (named && lang === "en" && EN_NAMES[name]) return EN_NAMES[name];
  const words = name.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What kind of control a schema asks for. */
export function kindOf(schema: Schema): "text" | "number" | "numberOrText" | "boolean" | "enum" | "list" | "group" {
  if (schema.enum) return "enum";
  if (schema.anyOf) return schema.anyOf.some((s) => s.type === "number" || s.type === "integer") ? "numberOrText" : "text";
  if (schema.type === "number" || schema.type === "integer") return schema.anyOf ? "numberOrText" : "number";
  if (schema.type === "boolean") return "boolean";
  if (schema.type === "array") return "list";
  if (schema.type === "object" && schema.properties) return "group";
  return "text";
}

/** The user_prompt the API gets: only the fields given, numbers as numbers, lists as arrays, groups as objects. */
export function buildPrompt(schema: Schema | null, values: Values, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema?.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    const raw = values[path] ?? "";
    const kind = kindOf(field);
    if (kind === "group") {
      const inner = buildPrompt(field, values, path);
      if (Object.keys(inner).length > 0) out[name] = inner;
    } else if (kind === "boolean") {
      if (raw) out[name] = raw === "true";
    } else if (kind === "list") {
      const lines = raw.split("\n").map((l) => l.trim()).filter(Boolean);
      if (lines.length > 0) out[name] = lines;
    } else if (raw.trim() !== "") {
      const numeric = /^-?\d+(?:[.,]\d+)?$/.test(raw.trim());
      out[name] = kind === "number" || (kind === "numberOrText" && numeric) ? Number(raw.trim().replace(",", ".")) : raw;
    }
  }
  return out;
}
