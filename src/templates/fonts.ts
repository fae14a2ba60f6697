// The Latin font families vitrin ships, by the role a template asks for; a brand kit picks one of these names.
import type { FontRole } from "./define";

/** The family behind each font role (the ffmpeg renderer's fonts.ts ships these files; test/brand.test.ts holds them equal). */
export const ROLE_FAMILIES: Readonly<Record<FontRole, string>> = { sans: "Inter", display: "Montserrat", serif: "Playfair Display" };

/** The fonts a brand kit may name. */
export const SHIPPED_FONTS: readonly string[] = [...new Set(Object.values(ROLE_FAMILIES))];
