/** Languages every built-in string exists in; anything else falls back to English words (and keeps its own direction). */
export declare const LANGUAGES: readonly ["en", "tr", "de", "fr", "es", "ar", "ja"];
export type Strings = Record<string, string>;
/** The built-in strings' keys (`ctx.s("shopNow")`); each language has every one. */
export type BuiltinStringKey = "shopNow" | "buyNow" | "discover" | "new" | "newArrival" | "newCollection" | "limitedOffer" | "sale" | "endsSoon" | "now" | "only" | "was" | "off" | "whyLoveIt" | "premiumQuality" | "freeShipping";
export declare const BUILTIN_STRINGS: Record<(typeof LANGUAGES)[number], Record<BuiltinStringKey, string>>;
/** The primary language subtag of a BCP 47 tag ("pt-BR" → "pt"), lowercased; malformed input becomes "en". */
export declare function baseLanguage(tag: string): string;
export declare function isRtl(tag: string): boolean;
/** Looks a key up in the template's strings, then the built-in ones, in the language first and English after. */
export declare function makeStrings(lang: string, own: Partial<Record<string, Strings>> | undefined): (key: string, vars?: Record<string, string>) => string;
export declare function currencyFor(lang: string, given?: string): string;
export declare function formatPrice(value: number | string, currency: string, lang: string): string;
export declare function formatPercent(fraction: number, lang: string): string;
