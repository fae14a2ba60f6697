// Built-in strings every template may use (calls to action, badges, price labels), language resolution and formatting.

/** Languages every built-in string exists in; anything else falls back to English words (and keeps its own direction). */
export const LANGUAGES = ["en", "tr", "de", "fr", "es", "ar", "ja"] as const;

const RTL = new Set(["ar", "he", "iw", "fa", "ur", "ps", "yi", "dv", "ckb", "sd", "ug"]);

export type Strings = Record<string, string>;

/** The built-in strings' keys (`ctx.s("shopNow")`); each language has every one. */
export type BuiltinStringKey =
  | "shopNow" | "buyNow" | "discover" | "new" | "newArrival" | "newCollection" | "limitedOffer" | "sale" | "endsSoon"
  | "now" | "only" | "was" | "off" | "whyLoveIt" | "premiumQuality" | "freeShipping";

export const BUILTIN_STRINGS: Record<(typeof LANGUAGES)[number], Record<BuiltinStringKey, string>> = {
  en: {
    shopNow: "Shop now",
    buyNow: "Buy now",
    discover: "Discover",
    new: "New",
    newArrival: "New arrival",
    newCollection: "New collection",
    limitedOffer: "Limited offer",
    sale: "Sale",
    endsSoon: "Ends soon",
    now: "Now",
    only: "Only {price}",
    was: "Was {price}",
    off: "{percent} off",
    whyLoveIt: "Why you'll love it",
    premiumQuality: "Premium quality",
    freeShipping: "Free shipping",
  },
  tr: {
    shopNow: "Hemen al",
    buyNow: "Satın al",
    discover: "Keşfet",
    new: "Yeni",
    newArrival: "Yeni ürün",
    newCollection: "Yeni koleksiyon",
    limitedOffer: "Sınırlı teklif",
    sale: "İndirim",
    endsSoon: "Kaçırmayın",
    now: "Şimdi",
    only: "Sadece {price}",
    was: "Önce {price}",
    off: "{percent} indirim",
    whyLoveIt: "Neden seveceksiniz",
    premiumQuality: "Üstün kalite",
    freeShipping: "Ücretsiz kargo",
  },
  de: {
    shopNow: "Jetzt kaufen",
    buyNow: "Jetzt bestellen",
    discover: "Entdecken",
    new: "Neu",
    newArrival: "Neu eingetroffen",
    newCollection: "Neue Kollektion",
    limitedOffer: "Begrenztes Angebot",
    sale: "Sale",
    endsSoon: "Nur für kurze Zeit",
    now: "Jetzt",
    only: "Nur {price}",
    was: "Statt {price}",
    off: "{percent} Rabatt",
    whyLoveIt: "Darum lieben Sie es",
    premiumQuality: "Premium-Qualität",
    freeShipping: "Kostenloser Versand",
  },
  fr: {
    shopNow: "Acheter",
    buyNow: "Commander",
    discover: "Découvrir",
    new: "Nouveau",
    newArrival: "Nouveauté",
    newCollection: "Nouvelle collection",
    limitedOffer: "Offre limitée",
    // "Soldes" is reserved in France for the legal sale periods (Code de commerce L310-3): a promotion says "Promo".
    sale: "Promo",
    endsSoon: "Derniers jours",
    now: "Maintenant",
    only: "Seulement {price}",
    was: "Au lieu de {price}",
    off: "{percent} de remise",
    whyLoveIt: "Pourquoi vous allez l'adorer",
    premiumQuality: "Qualité premium",
    freeShipping: "Livraison gratuite",
  },
  es: {
    shopNow: "Comprar ahora",
    buyNow: "Comprar",
    discover: "Descubrir",
    new: "Nuevo",
    newArrival: "Novedad",
    newCollection: "Nueva colección",
    limitedOffer: "Oferta limitada",
    sale: "Rebajas",
    endsSoon: "Termina pronto",
    now: "Ahora",
    only: "Solo {price}",
    was: "Antes {price}",
    off: "{percent} de descuento",
    whyLoveIt: "Por qué te encantará",
    premiumQuality: "Calidad premium",
    freeShipping: "Envío gratis",
  },
  ar: {
    shopNow: "تسوق الآن",
    buyNow: "اشترِ الآن",
    discover: "اكتشف",
    new: "جديد",
    newArrival: "وصل حديثاً",
    newCollection: "مجموعة جديدة",
    limitedOffer: "عرض محدود",
    sale: "تخفيضات",
    endsSoon: "ينتهي قريباً",
    now: "الآن",
    only: "فقط {price}",
    was: "بدلاً من {price}",
    off: "خصم {percent}",
    whyLoveIt: "لماذا ستحبه",
    premiumQuality: "جودة فاخرة",
    freeShipping: "شحن مجاني",
  },
  ja: {
    shopNow: "今すぐ購入",
    buyNow: "購入する",
    discover: "詳しく見る",
    new: "新商品",
    newArrival: "新入荷",
    newCollection: "新コレクション",
    limitedOffer: "期間限定",
    sale: "セール",
    endsSoon: "まもなく終了",
    now: "今なら",
    only: "わずか{price}",
    was: "通常{price}",
    off: "{percent}オフ",
    whyLoveIt: "おすすめポイント",
    premiumQuality: "上質な品質",
    freeShipping: "送料無料",
  },
};

/** The primary language subtag of a BCP 47 tag ("pt-BR" → "pt"), lowercased; malformed input becomes "en". */
export function baseLanguage(tag: string): string {
  const base = (tag || "").trim().split(/[-_]/)[0]!.toLowerCase();
  return /^[a-z]{2,3}$/.test(base) ? base : "en";
}

export function isRtl(tag: string): boolean {
  return RTL.has(baseLanguage(tag));
}

/** Looks a key up in the template's strings, then the built-in ones, in the language first and English after. */
export function makeStrings(lang: string, own: Partial<Record<string, Strings>> | undefined) {
  const base = baseLanguage(lang);
  const builtin = BUILTIN_STRINGS as Record<string, Strings>;
  const chain = [own?.[base], builtin[base], own?.en, builtin.en];
  return (key: string, vars: Record<string, string> = {}): string => {
    for (const table of chain) {
      const s = table?.[key];
      if (s !== undefined) return s.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m);
    }
    throw new Error(`template string "${key}" is missing from English`);
  };
}

/** Intl locale for formatting: the full tag when Intl knows it, else the base language, else English. */
function locale(tag: string): string {
  for (const candidate of [tag, baseLanguage(tag)]) {
    try {
      if (Intl.NumberFormat.supportedLocalesOf([candidate]).length > 0) return candidate;
    } catch {}
  }
  return "en";
}

const defaultCurrency: Record<string, string> = { tr: "TRY", de: "EUR", fr: "EUR", es: "EUR", ja: "JPY", ar: "SAR", en: "USD" };

export function currencyFor(lang: string, given?: string): string {
  return (given ?? defaultCurrency[baseLanguage(lang)] ?? "USD").toUpperCase();
}

/** A price as the buyer's language writes it; a string price is the caller's own wording and is kept as is. */
/**
 * Two of CLDR's symbols as shops write them in a video: Japanese shops write the half-width yen (¥3,980; the full-width
 * ￥ stands apart from its figures), and a riyal or dirham's closing stop ("ر.س.") falls to the Latin display font,
 * where it is drawn as a bullet: "ر.س", as Saudi shops write it too.
 */
function shopSymbol(text: string): string {
  return text.replace(/\uFFE5/g, "\u00A5").replace(/(\p{Script=Arabic})\.(?=[\u200e\u200f\s]*$|[\u200e\u200f\s])/gu, "$1");
}

export function formatPrice(value: number | string, currency: string, lang: string): string {
  if (typeof value === "string") return value.trim();
  const whole = Number.isInteger(value);
  try {
    return shopSymbol(
      new Intl.NumberFormat(locale(lang), {
        style: "currency",
        currency,
        minimumFractionDigits: whole ? 0 : undefined,
        maximumFractionDigits: whole ? 0 : undefined,
      }).format(value),
    );
  } catch {
    return `${value} ${currency}`;
  }
}

export function formatPercent(fraction: number, lang: string): string {
  return new Intl.NumberFormat(locale(lang), { style: "percent", maximumFractionDigits: 0 }).format(fraction);
}
