export type SharedField = "headline" | "subheadline" | "price" | "oldPrice" | "currency" | "callToAction" | "features" | "colors";
export declare const FIELD_DESCRIPTIONS: Record<"ar" | "de" | "en" | "es" | "fr" | "ja" | "tr", Record<SharedField, string>>;
/**
 * A copy of a prompt schema (the registry's JSON form) with the shared fields' descriptions in `lang` (a base language
 * of LANGUAGES); everything else, a template's own descriptions included, as it was.
 */
export declare function promptSchemaIn(schema: Record<string, unknown>, lang: string): Record<string, unknown>;
