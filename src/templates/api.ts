// The template API: all a template imports (defineTemplate, the shared prompt fields, TypeBox's t, animation and
// colour and text helpers, and the types of a definition and its scene).
//
// ## Writing a template
//
// A template is one TypeScript (or JavaScript) module in a templates folder. It imports nothing but this module
// and default-exports `defineTemplate({ meta, prompt, strings, build })`:
//
//   import { defineTemplate, fields, t } from "../src/templates/api";
//   export default defineTemplate({
//     meta: { id: "my-ad", name: "My ad", description: "…", aspect: "9:16", duration: 8, credits: 1 },
//     prompt: t.Object({ headline: fields.headline(), price: fields.price(), colors: fields.colors() }),
//     strings: { en: { tagline: "Made to last" }, tr: { tagline: "Uzun ömürlü" } },
//     async build(ctx) {
//       const { width, height, safe } = ctx;
//       const product = await ctx.productImage({ maxWidth: safe.w * 0.8, maxHeight: safe.h * 0.55 });
//       const title = await ctx.text({ text: ctx.prompt.headline ?? ctx.product.name, size: 96, maxWidth: safe.w, maxLines: 2 });
//       const x = safe.x + safe.w / 2;
//       return {
//         background: await ctx.svg(`<rect width="${width}" height="${height}" fill="#123"/>`, width, height),
//         layers: [
//           { image: product, x, y: safe.y + safe.h * 0.3, scale: [[0, 0.9], [1.5, 1, "out"]] },
//           { image: title, x, y: safe.y + safe.h - title.h / 2, opacity: [[0.5, 0], [1, 1]] },
//         ],
//       };
//     },
//   });
//
// - `meta`: id (a-z, 0-9, dashes), name, description, aspect (the format it is listed with: "9:16" 1080×1920,
//   "4:5" 1080×1350, "1:1" 1080×1080, "16:9" 1920×1080), duration in seconds, credits (≥ 1), optional premium, fps
//   (default 30) and posterAt (the second used for thumbnails and previews).
// - Every format: a video may be asked in any of the four; `build` reads `ctx.aspect`, `ctx.width`, `ctx.height` and
//   composes each on its own (landscape side by side, square and 4:5 tighter), keeping text and buttons inside
//   `ctx.safe` at every moment they show (already mirrored for right-to-left), apart from each other and the product.
// - `prompt`: a TypeBox object (Elysia's `t`) describing user_prompt. Every field must be optional (a template with a
//   required one is refused at load: a video may be asked with no user_prompt), with a sensible default drawn from
//   the product (its name, its description); `fields.*` gives the shared ones
//   (headline, subheadline, price, oldPrice, currency, callToAction, features, colors). Unknown fields are refused.
// - `strings`: the template's own words per language; the built-in ones (shopNow, buyNow, discover, new,
//   newArrival, newCollection, limitedOffer, sale, endsSoon, now, only, was, off, whyLoveIt, premiumQuality,
//   freeShipping) exist in en, tr, de, fr, es, ar, ja. A template offers those of these seven languages it has all
//   its own words in; words in other languages are not used.
// - `build(ctx)` makes pictures with the context (text, svg, productImage, button, group: all sized in template
//   pixels of the full-size frame, made at the render's scale) and returns a Scene: a background and layers
//   whose x, y, scale and rotate are numbers, keyframes `[seconds, value, ease?]` or expressions (`wave`,
//   `sum`), with fades as 0/1 `opacity` keyframes. Right-to-left languages mirror every x (text itself is shaped
//   by pango, so write layouts for left-to-right and let the scene mirror them).
// - Keep it fast: frames in which nothing changes are not composed at all (the last one is repeated, and the
//   encoder skips identical frames cheaply), so let the design settle after its entrances; scale, rotate and
//   fades cost per frame in proportion to the layer's size, and only while they change. Endless motion (`wave`,
//   a scrolling ticker) makes every frame change: keep it to small layers drawn last.
//
// A template dropped into a folder next to the compiled binary cannot import this module by path: it may
// instead default-export a function `(api) => api.defineTemplate(…)`, receiving `templateApi` (defineTemplate, t,
// fields, wave, sum and the colour and text helpers). Its types come without a checkout from the plugin kit's package,
// `@vitrin/plugin-kit/templates` (`TemplateApi` and the rest; see docs/templates.md, "Templates from a folder").
//
// The built-in templates are listed in templates/index.ts; a folder named by VITRIN_TEMPLATE_DIRS is read at start.
import type { JavaScriptTypeBuilder } from "@sinclair/typebox";
import { t } from "elysia";
import { sum, valueAt, wave } from "./anim";
import { contrastRatio, darken, defineTemplate, fields, firstSentence, inkOn, legible, lighten, luminance, mix, phrasesFrom, readableOn } from "./define";

/**
 * TypeBox's builder as templates and folder plugins are given it. Elysia's `t` is one (with extras for request
 * bodies they do not need); naming it by TypeBox alone keeps Elysia out of the plugin kit's declarations.
 */
export type TypeBuilder = Omit<JavaScriptTypeBuilder, "Transform">;
// Checked, not cast: a newer Elysia whose `t` stopped being a TypeBox builder fails the type-check here.
const typeBuilder: TypeBuilder = t;

export { typeBuilder as t };
export { sum, valueAt, wave } from "./anim";
export { contrastRatio, darken, defineTemplate, fields, firstSentence, inkOn, legible, lighten, luminance, mix, phrasesFrom, readableOn } from "./define";
export { TEXT_FLOORS, shrinkFloor } from "./define";
export { ROLE_FAMILIES, SHIPPED_FONTS } from "./fonts";
export type { Anim, Ease, Expr, Keyframe } from "./anim";
export type { Asset, Background, Layer, Scene } from "./scene";
export type {
  Aspect,
  Box,
  BuildContext,
  ButtonOptions,
  FontRole,
  GroupItem,
  GroupOptions,
  ProductAsset,
  ProductImageOptions,
  SoftShadow,
  SvgOptions,
  TemplateDefinition,
  TemplateMeta,
  TemplateWords,
  TextOptions,
  TextStyle,
} from "./define";

/** What a template module that exports a function receives: the same helpers, for templates that cannot import. */
export const templateApi = {
  defineTemplate, t: typeBuilder, fields, wave, sum, valueAt, mix, lighten, darken, luminance, readableOn, contrastRatio, inkOn, legible,
  firstSentence, phrasesFrom,
};
export type TemplateApi = typeof templateApi;
