// The shared prompt fields' descriptions (fields.headline() and the rest) in every built-in language: the templates'
// `prompt_schema` reads them in English, and the catalogue's `?language=` in the asked language.
import { BUILTIN_STRINGS, LANGUAGES, type BuiltinStringKey } from "./i18n";

export type SharedField = "headline" | "subheadline" | "price" | "oldPrice" | "currency" | "callToAction" | "features" | "colors";
type Language = (typeof LANGUAGES)[number];

/**
 * One table a language; `{button}` is the button's default words (a BUILTIN_STRINGS key, `shopNow` unless the
 * template names another) in that language. French writes a no-break space before `;` and inside « ».
 */
const TABLES: Record<Language, Record<SharedField, string>> = {
  en: {
    headline: "Main line; defaults to the product name.",
    subheadline: "Second line; defaults to the first sentence of the description.",
    price: "A number (formatted in the video's language and currency) or text shown as is.",
    oldPrice: "The price before the discount, shown struck through; like the price, a number or text.",
    currency: "ISO 4217 code; defaults by language (USD, TRY, EUR, JPY, SAR).",
    callToAction: "Button text; defaults to \"{button}\" in the video's language.",
    features: "Short selling points; default to phrases from the description.",
    colors: "Brand colours as #rrggbb.",
  },
  tr: {
    headline: "Ana satır; boş bırakılırsa ürünün adı.",
    subheadline: "İkinci satır; boş bırakılırsa açıklamanın ilk cümlesi.",
    price: "Bir sayı (videonun diline ve para birimine göre biçimlendirilir) ya da olduğu gibi gösterilen bir metin.",
    oldPrice: "İndirimden önceki fiyat, üstü çizili gösterilir; fiyat gibi bir sayı ya da metin.",
    currency: "ISO 4217 kodu; boş bırakılırsa dile göre seçilir (USD, TRY, EUR, JPY, SAR).",
    callToAction: "Düğme metni; boş bırakılırsa videonun dilinde \"{button}\".",
    features: "Öne çıkan kısa özellikler; boş bırakılırsa açıklamadan alınan ifadeler.",
    colors: "Marka renkleri, #rrggbb biçiminde.",
  },
  de: {
    headline: "Hauptzeile; standardmäßig der Produktname.",
    subheadline: "Zweite Zeile; standardmäßig der erste Satz der Beschreibung.",
    price: "Eine Zahl (in Sprache und Währung des Videos formatiert) oder ein Text, der unverändert erscheint.",
    oldPrice: "Der Preis vor dem Rabatt, durchgestrichen angezeigt; wie der Preis eine Zahl oder ein Text.",
    currency: "ISO-4217-Code; standardmäßig je nach Sprache (USD, TRY, EUR, JPY, SAR).",
    callToAction: "Text der Schaltfläche; standardmäßig „{button}“ in der Sprache des Videos.",
    features: "Kurze Verkaufsargumente; standardmäßig Formulierungen aus der Beschreibung.",
    colors: "Markenfarben als #rrggbb.",
  },
  fr: {
    headline: "Titre\u00a0; par défaut, le nom du produit.",
    subheadline: "Sous-titre\u00a0; par défaut, la première phrase de la description.",
    price: "Un nombre (mis en forme selon la langue et la devise de la vidéo) ou un texte affiché tel quel.",
    oldPrice: "Le prix avant la remise, affiché barré\u00a0; comme le prix, un nombre ou un texte.",
    currency: "Code ISO 4217\u00a0; par défaut selon la langue (USD, TRY, EUR, JPY, SAR).",
    callToAction: "Texte du bouton\u00a0; par défaut «\u00a0{button}\u00a0», traduit dans la langue de la vidéo.",
    features: "Arguments de vente courts\u00a0; par défaut, des expressions tirées de la description.",
    colors: "Couleurs de la marque au format #rrggbb.",
  },
  es: {
    headline: "Línea principal; por defecto, el nombre del producto.",
    subheadline: "Segunda línea; por defecto, la primera frase de la descripción.",
    price: "Un número (con el formato del idioma y la moneda del vídeo) o un texto que se muestra tal cual.",
    oldPrice: "El precio antes del descuento, que se muestra tachado; como el precio, un número o un texto.",
    currency: "Código ISO 4217; por defecto, según el idioma (USD, TRY, EUR, JPY, SAR).",
    callToAction: "Texto del botón; por defecto, «{button}» en el idioma del vídeo.",
    features: "Argumentos de venta breves; por defecto, frases tomadas de la descripción.",
    colors: "Colores de la marca en formato #rrggbb.",
  },
  ar: {
    headline: "السطر الرئيسي؛ إن لم يُحدَّد فهو اسم المنتج.",
    subheadline: "السطر الثاني؛ إن لم يُحدَّد فهو الجملة الأولى من الوصف.",
    price: "رقم (يُنسَّق حسب لغة الفيديو وعملته) أو نص يُعرض كما هو.",
    oldPrice: "السعر قبل الخصم، ويظهر مشطوبًا؛ رقم أو نص مثل السعر.",
    currency: "رمز ISO 4217؛ إن لم يُحدَّد فيُختار حسب اللغة (USD، TRY، EUR، JPY، SAR).",
    callToAction: "نص الزر؛ إن لم يُحدَّد فهو «{button}» بلغة الفيديو.",
    features: "مزايا بارزة قصيرة؛ إن لم تُحدَّد فهي عبارات من الوصف.",
    colors: "ألوان العلامة التجارية بصيغة #rrggbb.",
  },
  ja: {
    headline: "メインの行。省略時は商品名。",
    subheadline: "2行目。省略時は説明文の最初の一文。",
    price: "数値（動画の言語と通貨の形式で表示）、またはそのまま表示するテキスト。",
    oldPrice: "割引前の価格（取り消し線付きで表示）。価格と同じく数値またはテキスト。",
    currency: "ISO 4217 の通貨コード。省略時は言語に応じた通貨（USD、TRY、EUR、JPY、SAR）。",
    callToAction: "ボタンの文言。省略時は動画の言語で「{button}」。",
    features: "短いセールスポイント。省略時は説明文から抜き出したフレーズ。",
    colors: "ブランドカラー（#rrggbb 形式）。",
  },
};

/** The languages the shared fields are described in. */
export const FIELD_LANGUAGES = Object.keys(TABLES) as Language[];

/** The built-in words a button can show: all but the phrases with a placeholder ("Only {price}"). */
export type ButtonWords = Exclude<BuiltinStringKey, "only" | "was" | "off">;

/** Whether `key` names built-in words a button can default to (`shopNow`, `discover`…). */
export const isButtonWords = (key: string): key is ButtonWords => Object.hasOwn(BUILTIN_STRINGS.en, key) && !BUILTIN_STRINGS.en[key as BuiltinStringKey].includes("{");

/** A shared field's description in a language; the button's names its default words (`button`) in that language. */
export function fieldDescription(lang: Language, field: SharedField, button: ButtonWords = "shopNow"): string {
  const text = TABLES[lang][field];
  return field === "callToAction" ? text.replace("{button}", BUILTIN_STRINGS[lang][button]) : text;
}

type Shared = { field: SharedField; button?: ButtonWords };
/**
 * Each English description to the field it describes (a button's, with each default words it may name): a template's
 * own wording matches none and stays as written.
 */
const SHARED_BY_ENGLISH = new Map<string, Shared>();
for (const field of Object.keys(TABLES.en) as SharedField[]) {
  if (field !== "callToAction") SHARED_BY_ENGLISH.set(fieldDescription("en", field), { field });
  else for (const button of Object.keys(BUILTIN_STRINGS.en).filter(isButtonWords)) SHARED_BY_ENGLISH.set(fieldDescription("en", field, button), { field, button });
}

type JsonSchema = { description?: unknown; properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[] };

/**
 * A copy of a prompt schema (the registry's JSON form) with the shared fields' descriptions in `lang` (a base language
 * of LANGUAGES); everything else, a template's own descriptions included, as it was.
 */
export function promptSchemaIn(schema: Record<string, unknown>, lang: string): Record<string, unknown> {
  if (lang === "en" || !(FIELD_LANGUAGES as string[]).includes(lang)) return schema;
  const walk = (node: JsonSchema): JsonSchema => {
    const out: JsonSchema & Record<string, unknown> = { ...node };
    const shared = typeof node.description === "string" ? SHARED_BY_ENGLISH.get(node.description) : undefined;
    if (shared) out.description = fieldDescription(lang as Language, shared.field, shared.button);
    if (node.properties) out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, walk(v)]));
    if (node.items) out.items = walk(node.items);
    if (node.anyOf) out.anyOf = node.anyOf.map(walk);
    return out;
  };
  return walk(schema as JsonSchema) as Record<string, unknown>;
}
