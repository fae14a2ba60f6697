import type { FontRole } from "./define";
/** The family behind each font role (the ffmpeg renderer's fonts.ts ships these files; test/brand.test.ts holds them equal). */
export declare const ROLE_FAMILIES: Readonly<Record<FontRole, string>>;
/** The fonts a brand kit may name. */
export declare const SHIPPED_FONTS: readonly string[];
