import { LANGUAGES, type BuiltinStringKey } from "./i18n";
export type SharedField = "headline" | "subheadline" | "price" | "oldPrice" | "currency" | "callToAction" | "features" | "colors";
type Language = (typeof LANGUAGES)[number];
/** The languages the shared fields are described in. */
export declare const FIELD_LANGUAGES: Language[];
/** The built-in words a button can show: all but the phrases with a placeholder ("Only {price}"). */
export type ButtonWords = Exclude<BuiltinStringKey, "only" | "was" | "off">;
/** Whether `key` names built-in words a button can default to (`shopNow`, `discover`…). */
export declare const isButtonWords: (key: string) => key is ButtonWords;
/** A shared field's description in a language; the button's names its default words (`button`) in that language. */
export declare function fieldDescription(lang: Language, field: SharedField, button?: ButtonWords): string;
/**
 * A copy of a prompt schema (the registry's JSON form) with the shared fields' descriptions in `lang` (a base language
 * of LANGUAGES); everything else, a template's own descriptions included, as it was.
 */
export declare function promptSchemaIn(schema: Record<string, unknown>, lang: string): Record<string, unknown>;
export {};
