import type { Static, TObject } from "@sinclair/typebox";
import type { Anim } from "./anim";
import { type ButtonWords } from "./field-words";
import type { Strings } from "./i18n";
import type { Asset, Scene } from "./scene";
/** The video formats: 9:16 (stories, Reels, TikTok, Shorts), 4:5 (feed), 1:1 (square) and 16:9 (landscape). */
export type Aspect = "9:16" | "4:5" | "1:1" | "16:9";
export declare const ASPECTS: readonly Aspect[];
export declare const ASPECT_SIZES: Record<Aspect, {
    width: number;
    height: number;
}>;
/** A rectangle in template pixels. */
export type Box = {
    x: number;
    y: number;
    w: number;
    h: number;
};
/**
 * Where text and buttons may go in a format, in the template's (left-to-right) pixels. In 9:16 the apps that play
 * vertical video cover the top 220 px, the bottom 420 px and the right 140 px with their own buttons and captions;
 * the other formats keep a 54 px margin (5 % of 1080). A right-to-left scene is mirrored after it is built, so its
 * safe area is mirrored before: the covered strip still ends up on the right.
 */
export declare function safeArea(aspect: Aspect, rtl?: boolean): Box;
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
export declare const TEXT_FLOORS: {
    readonly headline: 64;
    readonly body: 36;
};
/** The size a text may shrink to: the template's minSize (or 40 % of size) raised to its floor, never above size. */
export declare function shrinkFloor(style: Pick<TextStyle, "size" | "minSize" | "role">, name?: string): number;
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
export type TemplateWords = {
    name: string;
    description?: string;
};
/** A text layer's style; `size`, `maxWidth` in template pixels. See TextStyle. */
export type TextOptions = TextStyle & {
    name?: string;
};
/** An image that holds a product cut-out (or a framed photo) with its shadow and glow. */
export type ProductAsset = Asset & {
    /** Size of the product itself inside the padded image, in template pixels. */
    content: {
        w: number;
        h: number;
    };
};
export type ProductImageOptions = {
    /** The box the product must fit (its aspect ratio is always kept). */
    maxWidth: number;
    maxHeight: number;
    /** Soft drop shadow from the mask (default on). */
    shadow?: false | {
        opacity?: number;
        blur?: number;
        offsetY?: number;
        color?: string;
    };
    /** Coloured halo from the mask. */
    glow?: false | {
        color: string;
        opacity?: number;
        blur?: number;
    };
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
    border?: {
        color: string;
        width: number;
    };
    uppercase?: boolean;
    letterSpacing?: number;
    /** Lines the label may take before it shrinks. */
    maxLines?: number;
    /** A soft shadow under the button. */
    shadow?: boolean;
};
/** A soft drop shadow under a rounded rectangle (template pixels of the picture it belongs to). */
export type SoftShadow = {
    x: number;
    y: number;
    w: number;
    h: number;
    radius: number;
    blur: number;
    dy?: number;
    opacity?: number;
    color?: string;
};
export type GroupItem = {
    image: Asset;
    x: number;
    y: number;
    anchor?: [number, number];
    mirror?: boolean;
};
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
    product: {
        id: string;
        name: string;
        description: string;
        cutout: boolean;
    };
    /** A string in the video's language: the template's own strings first, then the built-in ones, then English. */
    s(key: string, vars?: Record<string, string>): string;
    /** A price in the video's language and the prompt's (or the language's usual) currency. */
    price(value: number | string): string;
    /** "-30 %"-style saving between two numeric prices in the video's language, or null. */
    saving(price: unknown, oldPrice: unknown): string | null;
    text(style: TextOptions): Promise<Asset & {
        fontSize: number;
        lines: number;
    }>;
    /** An SVG drawing (`w`×`h` template pixels, viewBox 0 0 w h) as a picture. */
    svg(markup: string, w: number, h: number, name?: string, options?: SvgOptions): Promise<Asset>;
    productImage(opts: ProductImageOptions): Promise<ProductAsset>;
    /** A button: its label fitted (lines, then size down to the body floor) on a filled shape; reports the label's size. */
    button(opts: ButtonOptions): Promise<Asset & {
        fontSize: number;
        lines: number;
    }>;
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
export declare function fpsOf(def: TemplateDefinition): number;
/** Output size at a scale: rounded to even numbers, as H.264 in 4:2:0 needs. */
export declare function renderSize(size: {
    width: number;
    height: number;
}, scale?: number): {
    width: number;
    height: number;
};
/** Marks a template definition; a template module default-exports what this returns. */
export declare function defineTemplate<S extends TObject>(def: TemplateDefinition<S>): TemplateDefinition<S>;
export declare function isTemplateDefinition(x: unknown): x is TemplateDefinition;
/** Prompt fields shared by templates, so every template names and checks them the same way. */
export declare const fields: {
    headline: (maxLength?: number) => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
    subheadline: (maxLength?: number) => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
    price: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TUnion<[import("@sinclair/typebox").TNumber, import("@sinclair/typebox").TString]>>;
    /** The price before a discount, which sale templates strike through and work the saving out from. */
    oldPrice: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TUnion<[import("@sinclair/typebox").TNumber, import("@sinclair/typebox").TString]>>;
    currency: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
    /** `button`: the key of the built-in words the template shows when none are given (`ctx.s(button)`), for its description. */
    callToAction: (maxLength?: number, button?: ButtonWords) => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
    features: (maxItems?: number) => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TArray<import("@sinclair/typebox").TString>>;
    color: () => import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
    colors: () => import("@sinclair/typebox").TOptional<TObject<{
        primary: import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        accent: import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        background: import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
        text: import("@sinclair/typebox").TOptional<import("@sinclair/typebox").TString>;
    }>>;
};
/** The first sentence of a text, if it is short enough to be a line of its own. */
export declare function firstSentence(text: string | null | undefined, maxLength?: number): string | undefined;
/** Short phrases from a description (sentences, then clauses), for features nobody wrote. */
export declare function phrasesFrom(text: string | null | undefined, max: number, maxLength?: number): string[];
export declare function rgb(hexColor: string): [number, number, number];
export declare function toHex([r, g, b]: [number, number, number]): string;
/** `a` moved towards `b` by `amount` (0..1). */
export declare function mix(a: string, b: string, amount: number): string;
export declare const lighten: (c: string, amount: number) => string;
export declare const darken: (c: string, amount: number) => string;
/** Relative luminance (0 dark … 1 light). */
export declare function luminance(c: string): number;
/** Dark or light text, whichever reads better on `background`. */
export declare function readableOn(background: string, dark?: string, light?: string): string;
/** WCAG contrast ratio of two colours (1 … 21). */
export declare function contrastRatio(a: string, b: string): number;
/** `dark` or `light`, whichever stands out more on `background` (by WCAG contrast). */
export declare function inkOn(background: string, dark?: string, light?: string): string;
/** `color` where it reads on `background` at `min`:1 (WCAG AA: 4.5 for text, 3 at headline size), else the ink that does. */
export declare function legible(color: string, background: string, min?: number): string;
export type { Anim };
