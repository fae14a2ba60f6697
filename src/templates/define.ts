// What a template author writes: metadata, a TypeBox prompt schema with shared field helpers, strings, and build().
import type { Static, TObject } from "@sinclair/typebox";
import { t } from "elysia";
import type { Anim } from "./anim";
import { fieldDescription, isButtonWords, type ButtonWords } from "./field-words";
import type { Strings } from "./i18n";
import type { Asset, Scene } from "./scene";

/** The video formats: 9:16 (stories, Reels, TikTok, Shorts), 4:5 (feed), 1:1 (square) and 16:9 (landscape). */
export type Aspect = "9:16" | "4:5" | "1:1" | "16:9";

export const ASPECTS: readonly Aspect[] = ["9:16", "4:5", "1:1", "16:9"];

export const ASPECT_SIZES: Record<Aspect, { width: number; height: number }> = {
  "9:16": { width: 1080, height: 1920 },
  "4:5": { width: 1080, height: 1350 },
  "1:1": { width: 1080, height: 1080 },
  "16:9": { width: 1920, height: 1080 },
};

/** A rectangle in template pixels. */
export type Box = { x: number; y: number; w: number; h: number };

/**
 * Where text and buttons may go in a format, in the template's (left-to-right) pixels. In 9:16 the apps that play
 * vertical video cover the top 220 px, the bottom 420 px and the right 140 px with their own buttons and captions;
 * the other formats keep a 54 px margin (5 % of 1080). A right-to-left scene is mirrored after it is built, so its
 * safe area is mirrored before: the covered strip still ends up on the right.
 */
export function safeArea(aspect: Aspect, rtl = false): Box {
  const { width, height } = ASPECT_SIZES[aspect];
  const m = 54;
  const [top, bottom, left, right] = aspect === "9:16" ? [220, 420, 60, 140] : [m, m, m, m];
  const [l, r] = rtl ? [right, left] : [left, right];
  return { x: l, y: top, w: width - l - r, h: height - top - bottom };
}

/** Font roles a template picks from; each is a Latin family, with the script fallbacks appended per language. */
export type FontRole = "sans" | "display" | "serif";

export type TextStyle = {
  text: string;
  /** Latin family: "sans" (Inter), "display" (Montserrat), "serif" (Playfair Display); other scripts fall back per run. */
  font?: FontRole;
  weight?: 400 | 600 | 700 | 800 | 900;
  italic?: boolean;
  /** Font size in template pixels (full-size frame). */
  size: number;
  /** The box the text must fit, in template pixels; the size shrinks (never grows) until it does. */
  maxWidth: number;
  maxLines?: number;
  color?: string;
  /** "start" follows the language: left for left-to-right, right for right-to-left. */
  align?: "start" | "center" | "end";
  /** Line height as a multiple of the size. */
  lineHeight?: number;
  /** Extra space between letters, in em (ignored for scripts that join letters). */
  letterSpacing?: number;
  uppercase?: boolean;
  strike?: boolean;
  /**
   * Smallest size shrinking may reach, in template pixels (default 40 % of `size`); never below the role's floor
   * (TEXT_FLOORS), whatever is asked.
   */
  minSize?: number;
  /** "headline" (floor 64 px) or "body" (floor 36 px, the default); a layer named "headline" is a headline. */
  role?: "headline" | "body";
};

/**
 * The smallest sizes text may shrink to so it stays legible on a phone, in template pixels (set for 1080 wide and
 * kept in every format). Copy that fits only below its floor is refused (422) rather than drawn too small.
 */
export const TEXT_FLOORS = { headline: 64, body: 36 } as const;

/** The size a text may shrink to: the template's minSize (or 40 % of size) raised to its floor, never above size. */
export function shrinkFloor(style: Pick<TextStyle, "size" | "minSize" | "role">, name?: string): number {
  const floor = style.role === "headline" || (style.role === undefined && name === "headline") ? TEXT_FLOORS.headline : TEXT_FLOORS.body;
  return Math.min(style.size, Math.max(floor, style.minSize ?? style.size * 0.4));
}

export type TemplateMeta = {
  /** Lowercase letters, digits and dashes; the API's template_id. */
  id: string;
  /** In English, the fallback language: the API and Studio show it where `translations` has no words. */
  name: string;
  description: string;
  /**
   * The name and description in other languages, keyed by base language (`tr`, `de`, …), for GET /v1/templates
   * `?language=`, Studio and download names; a missing description falls back to the English one.
   */
  translations?: Partial<Record<string, TemplateWords>>;
  aspect: Aspect;
  /** Seconds. */
  duration: number;
  /** Frames per second (default 30). */
  fps?: number;
  /** Credits one video costs (≥ 1). */
  credits: number;
  premium?: boolean;
  /** The second shown by thumbnails and previews (default: 75 % into the video). */
  posterAt?: number;
};

/** A template's name and description in one language. */
export type TemplateWords = { name: string; description?: string };

/** A text layer's style; `size`, `maxWidth` in template pixels. See TextStyle. */
export type TextOptions = TextStyle & { name?: string };

/** An image that holds a product cut-out (or a framed photo) with its shadow and glow. */
export type ProductAsset = Asset & {
  /** Size of the product itself inside the padded image, in template pixels. */
  content: { w: number; h: number };
};

export type ProductImageOptions = {
  /** The box the product must fit (its aspect ratio is always kept). */
  maxWidth: number;
  maxHeight: number;
  /** Soft drop shadow from the mask (default on). */
  shadow?: false | { opacity?: number; blur?: number; offsetY?: number; color?: string };
  /** Coloured halo from the mask. */
  glow?: false | { color: string; opacity?: number; blur?: number };
  /** How a photo that is not a cut-out is framed: rounded corners of this radius (template pixels). */
  photoRadius?: number;
};

export type ButtonOptions = {
  name?: string;
  text: string;
  font?: FontRole;
  weight?: TextStyle["weight"];
  size: number;
  color: string;
  background: string;
  /** Optional second colour: the button gets a left-to-right gradient. */
  background2?: string;
  maxWidth: number;
  paddingX?: number;
  paddingY?: number;
  /** Corner radius; default fully round ends. */
  radius?: number;
  border?: { color: string; width: number };
  uppercase?: boolean;
  letterSpacing?: number;
  /** Lines the label may take before it shrinks. */
  maxLines?: number;
  /** A soft shadow under the button. */
  shadow?: boolean;
};

/** A soft drop shadow under a rounded rectangle (template pixels of the picture it belongs to). */
export type SoftShadow = { x: number; y: number; w: number; h: number; radius: number; blur: number; dy?: number; opacity?: number; color?: string };

export type GroupItem = { image: Asset; x: number; y: number; anchor?: [number, number]; mirror?: boolean };
export type GroupOptions = {
  name?: string;
  w: number;
  h: number;
  /** SVG elements drawn first, in template pixels of the group (viewBox 0 0 w h). */
  svg?: string;
  /** A soft shadow under everything (cheaper than an SVG blur filter). */
  shadow?: SoftShadow;
  items: GroupItem[];
};

export type SvgOptions = {
  /**
   * For a scene's background only: drawn at this share of the video's resolution (0.25–1) and stretched to the frame
   * by the renderer. Smooth backdrops (gradients, glows, faint wide shapes) look the same and draw several times
   * faster: a full-frame radial gradient costs ~0.1 s of CPU at 1080×1920. Faint thin lines survive half detail;
   * strong crisp edges and fine detail need the default, 1. A picture drawn at less than 1 is refused as a layer or a
   * group's item (it would show at its smaller size).
   */
  detail?: number;
};

export type BuildContext<P> = {
  /** Template frame size in template pixels (the full-size video): set by the format asked for. */
  width: number;
  height: number;
  /** The format being composed: every template lays out each one on its own (no letterboxing, no cropping). */
  aspect: Aspect;
  /** Where text and buttons must stay (see safeArea); products and backgrounds may use the whole frame. */
  safe: Box;
  duration: number;
  fps: number;
  /** Base language of the video's words ("ar", "ja", …), and whether it reads right to left. */
  lang: string;
  rtl: boolean;
  /** Output pixels per template pixel (assets are made at this scale; layouts stay in template pixels). */
  scale: number;
  /** The validated user_prompt with the schema's static defaults applied. */
  prompt: P;
  product: { id: string; name: string; description: string; cutout: boolean };
  /** A string in the video's language: the template's own strings first, then the built-in ones, then English. */
  s(key: string, vars?: Record<string, string>): string;
  /** A price in the video's language and the prompt's (or the language's usual) currency. */
  price(value: number | string): string;
  /** "-30 %"-style saving between two numeric prices in the video's language, or null. */
  saving(price: unknown, oldPrice: unknown): string | null;
  text(style: TextOptions): Promise<Asset & { fontSize: number; lines: number }>;
  /** An SVG drawing (`w`×`h` template pixels, viewBox 0 0 w h) as a picture. */
  svg(markup: string, w: number, h: number, name?: string, options?: SvgOptions): Promise<Asset>;
  productImage(opts: ProductImageOptions): Promise<ProductAsset>;
  /** A button: its label fitted (lines, then size down to the body floor) on a filled shape; reports the label's size. */
  button(opts: ButtonOptions): Promise<Asset & { fontSize: number; lines: number }>;
  /** Several pictures merged into one (fewer layers render faster). Items are mirrored for right-to-left. */
  group(opts: GroupOptions): Promise<Asset>;
};

export type TemplateDefinition<S extends TObject = TObject> = {
  meta: TemplateMeta;
  prompt: S;
  /** The template's own strings by language (en first); the built-in ones (shopNow, new, …) need no repeating. */
  strings?: Partial<Record<string, Strings>>;
  build(ctx: BuildContext<Static<S>>): Promise<Scene> | Scene;
};

export function fpsOf(def: TemplateDefinition): number {
  return def.meta.fps ?? 30;
}

/** Output size at a scale: rounded to even numbers, as H.264 in 4:2:0 needs. */
export function renderSize(size: { width: number; height: number }, scale = 1): { width: number; height: number } {
  const even = (v: number) => Math.max(2, Math.round((v * scale) / 2) * 2);
  return { width: even(size.width), height: even(size.height) };
}

const TEMPLATE = Symbol.for("vitrin.template");

/** Marks a template definition; a template module default-exports what this returns. */
export function defineTemplate<S extends TObject>(def: TemplateDefinition<S>): TemplateDefinition<S> {
  return Object.assign(def, { [TEMPLATE]: true });
}

export function isTemplateDefinition(x: unknown): x is TemplateDefinition {
  if (!x || typeof x !== "object") return false;
  const d = x as Partial<TemplateDefinition>;
  return typeof d.build === "function" && !!d.meta && !!d.prompt;
}

const hex = t.String({ pattern: "^#[0-9a-fA-F]{6}$", error: "must be a colour like #1a2b3c" });

/**
 * A field helper's one argument: a whole number of at least 1, or the default when left out. Anything else (an object
 * such as `{ maxLength: 40 }`) would be published in the schema as is and refuse every prompt, so it is an error.
 */
function count(helper: string, what: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === "number" && Number.isInteger(value) && value >= 1) return value;
  const shown = typeof value === "number" ? String(value) : (JSON.stringify(value) ?? String(value));
  throw new Error(`fields.${helper}() takes ${what} as a whole number of at least 1, not ${shown}: write fields.${helper}(${fallback}), for example`);
}

/** The longest price given as text ("ab 19,90 €"). */
const PRICE_TEXT_MAX = 24;

/** A price: a number the render formats, or a short text shown as written. */
function priceField(description: string) {
  return t.Optional(
    t.Union([t.Number({ minimum: 0, maximum: 1e9 }), t.String({ minLength: 1, maxLength: PRICE_TEXT_MAX })], {
      description,
      error: `must be a number from 0 to 1000000000, or a text of 1 to ${PRICE_TEXT_MAX} characters`,
    }),
  );
}

/** Prompt fields shared by templates, so every template names and checks them the same way. */
export const fields = {
  headline: (maxLength?: number) =>
    t.Optional(t.String({ minLength: 1, maxLength: count("headline", "the longest length", maxLength, 60), description: fieldDescription("en", "headline") })),
  subheadline: (maxLength?: number) =>
    t.Optional(t.String({ minLength: 1, maxLength: count("subheadline", "the longest length", maxLength, 90), description: fieldDescription("en", "subheadline") })),
  price: () => priceField(fieldDescription("en", "price")),
  /** The price before a discount, which sale templates strike through and work the saving out from. */
  oldPrice: () => priceField(fieldDescription("en", "oldPrice")),
  currency: () =>
    t.Optional(
      t.String({ pattern: "^[A-Za-z]{3}$", description: fieldDescription("en", "currency"), error: "must be a three-letter currency code like USD" }),
    ),
  /** `button`: the key of the built-in words the template shows when none are given (`ctx.s(button)`), for its description. */
  callToAction: (maxLength?: number, button: ButtonWords = "shopNow") => {
    if (!isButtonWords(button)) throw new Error(`fields.callToAction() takes as its second argument the key of the built-in words the button shows when none are given (shopNow, buyNow, discover…), not ${JSON.stringify(button)}`);
    return t.Optional(t.String({ minLength: 1, maxLength: count("callToAction", "the longest length", maxLength, 28), description: fieldDescription("en", "callToAction", button) }));
  },
  features: (maxItems?: number) =>
    t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 48 }), {
        maxItems: count("features", "the most items", maxItems, 4),
        description: fieldDescription("en", "features"),
      }),
    ),
  color: () => t.Optional(hex),
  colors: () =>
    t.Optional(
      t.Object(
        { primary: t.Optional(hex), accent: t.Optional(hex), background: t.Optional(hex), text: t.Optional(hex) },
        { additionalProperties: false, description: fieldDescription("en", "colors") },
      ),
    ),
};

/** The first sentence of a text, if it is short enough to be a line of its own. */
export function firstSentence(text: string | null | undefined, maxLength = 90): string | undefined {
  // Latin sentences end with a stop and a space; Chinese and Japanese ones with a full-width stop and no space.
  const s = (text ?? "").trim().split(/(?<=[.!?])\s+|(?<=[。！？])|\n+/)[0]?.trim().replace(/[.。]$/, "");
  return s && s.length <= maxLength ? s : undefined;
}

/** Short phrases from a description (sentences, then clauses), for features nobody wrote. */
export function phrasesFrom(text: string | null | undefined, max: number, maxLength = 48): string[] {
  const parts = (text ?? "")
    .split(/[\n•·;|]+|(?<=[.!?。！？])\s*|,\s+|، |、/)
    .map((p) => p.trim().replace(/^[-*–—\s]+/, "").replace(/[.。]$/, ""))
    .filter((p) => p.length >= 3 && p.length <= maxLength)
    // A clause cut from the middle of a sentence still reads as a line of its own.
    .map((p) => p.charAt(0).toLocaleUpperCase() + p.slice(1));
  return [...new Set(parts)].slice(0, max);
}

// Colour helpers for templates (hex in, hex out).
const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
export function rgb(hexColor: string): [number, number, number] {
  const h = hexColor.replace("#", "");
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}
export function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b].map((v) => clamp(v).toString(16).padStart(2, "0")).join("")}`;
}
/** `a` moved towards `b` by `amount` (0..1). */
export function mix(a: string, b: string, amount: number): string {
  const x = rgb(a);
  const y = rgb(b);
  return toHex([0, 1, 2].map((i) => x[i]! + (y[i]! - x[i]!) * amount) as [number, number, number]);
}
export const lighten = (c: string, amount: number) => mix(c, "#ffffff", amount);
export const darken = (c: string, amount: number) => mix(c, "#000000", amount);
/** Relative luminance (0 dark … 1 light). */
export function luminance(c: string): number {
  const [r, g, b] = rgb(c).map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
/** Dark or light text, whichever reads better on `background`. */
export function readableOn(background: string, dark = "#111111", light = "#ffffff"): string {
  return luminance(background) > 0.45 ? dark : light;
}
/** WCAG contrast ratio of two colours (1 … 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
/** `dark` or `light`, whichever stands out more on `background` (by WCAG contrast). */
export function inkOn(background: string, dark = "#111111", light = "#ffffff"): string {
  return contrastRatio(dark, background) >= contrastRatio(light, background) ? dark : light;
}
/** `color` where it reads on `background` at `min`:1 (WCAG AA: 4.5 for text, 3 at headline size), else the ink that does. */
export function legible(color: string, background: string, min = 4.5): string {
  return contrastRatio(color, background) >= min ? color : inkOn(background);
}

export type { Anim };
