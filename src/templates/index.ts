// The template API: loading video templates, validating their prompts, previews, and what template authors import.
//
// ## Writing a template
//
// A template is one TypeScript (or JavaScript) module in a templates folder. It imports nothing but this module
// and default-exports `defineTemplate({ meta, prompt, strings, build })`:
//
//   import { defineTemplate, fields, t } from "../src/templates";
//   export default defineTemplate({
//     meta: { id: "my-ad", name: "My ad", description: "…", aspect: "9:16", duration: 8, credits: 1 },
//     prompt: t.Object({ headline: fields.headline(), price: fields.price(), colors: fields.colors() }),
//     strings: { en: { tagline: "Made to last" }, tr: { tagline: "Uzun ömürlü" } },
//     async build(ctx) {
//       const product = await ctx.productImage({ maxWidth: 800, maxHeight: 900 });
//       const title = await ctx.text({ text: ctx.prompt.headline ?? ctx.product.name, size: 96, maxWidth: 900, maxLines: 2 });
//       return {
//         background: await ctx.svg(`<rect width="1080" height="1920" fill="#123"/>`, 1080, 1920),
//         layers: [
//           { image: product, x: 540, y: 800, scale: [[0, 0.9], [1.5, 1, "out"]] },
//           { image: title, x: 540, y: [[0.5, 1800], [1.2, 1500, "out"]], opacity: [[0.5, 0], [1, 1]] },
//         ],
//       };
//     },
//   });
//
// - `meta`: id (a-z, 0-9, dashes), name, description, aspect ("9:16" 1080×1920, "1:1" 1080×1080, "16:9"
//   1920×1080), duration in seconds, credits (≥ 1), optional premium, fps (default 30) and posterAt (the second
//   used for thumbnails and previews).
// - `prompt`: a TypeBox object (Elysia's `t`) describing user_prompt. Every field should be optional with a
//   sensible default drawn from the product (its name, its description); `fields.*` gives the shared ones
//   (headline, subheadline, price, currency, callToAction, features, colors). Unknown fields are refused.
// - `strings`: the template's own words per language; the built-in ones (shopNow, buyNow, discover, new,
//   newArrival, newCollection, limitedOffer, sale, endsSoon, now, only, was, off, whyLoveIt, premiumQuality,
//   freeShipping) exist in en, tr, de, fr, es, ar, ja. Other languages use English words.
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
// fields, wave, sum and the colour and text helpers).
//
// ## Loading
// `loadTemplates(dirs)` imports every template module of the folders at run time. Without `dirs` it reads the
// repository's templates/ folder; in a compiled binary, where that folder is not on disk, it uses the same
// templates imported statically through ./builtin (so they are bundled).
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import {
  ASPECT_SIZES,
  defineTemplate,
  fields,
  firstSentence,
  isTemplateDefinition,
  darken,
  lighten,
  luminance,
  mix,
  phrasesFrom,
  readableOn,
  type Aspect,
  type TemplateDefinition,
} from "./define";
import { BUILTIN_STRINGS, LANGUAGES, baseLanguage } from "./i18n";
import { fpsOf, prepareRender } from "./render";
import { writeSampleProduct, samplePrompt } from "./sample";
import { PreviewCache } from "./preview-cache";
import { sum, valueAt, wave } from "./scene";
import { t } from "elysia";

export { t } from "elysia";
export * from "./define";
export { BUILTIN_STRINGS, LANGUAGES, baseLanguage, isRtl, formatPrice, currencyFor } from "./i18n";
export { compileScene, exprOf, layout, sum, valueAt, visibleSpan, wave } from "./scene";
export type { Anim, Asset, Background, Ease, Expr, Keyframe, Layer, Placement, Scene } from "./scene";
export { prepareRender, renderSize, withDefaults, type RenderInput, type RenderJob } from "./render";
export { renderTextImage, cleanText, type TextStyle, type TextImage } from "./text";
export { ensureFonts, FONT_FILES, type FontRole } from "./fonts";
export { writeSampleProduct, samplePrompt, type SampleProduct } from "./sample";
export { PreviewCache, DEFAULT_PREVIEW_CACHE_BYTES } from "./preview-cache";

export type TemplateInfo = {
  id: string;
  name: string;
  description: string;
  width: number;
  height: number;
  fps: number;
  duration: number /* seconds */;
  credits: number;
  premium: boolean;
  aspect: "9:16" | "1:1" | "16:9";
  languages: string[];
};

export type PromptProblem = { field: string; message: string };

export type LoadedTemplate = {
  info: TemplateInfo;
  /** JSON Schema of user_prompt (from the template's TypeBox schema), for GET /v1/templates. */
  promptSchema: Record<string, unknown>;
  /** Validates a user_prompt; problems use field paths like "headline" or "features.1". */
  validatePrompt(prompt: unknown): { ok: true } | { ok: false; problems: PromptProblem[] };
  /** The module's definition, for the renderer. */
  definition: TemplateDefinition;
  /** The file it was loaded from ("builtin:<id>" when bundled). */
  source: string;
};

export type TemplateRegistry = { list(): LoadedTemplate[]; get(id: string): LoadedTemplate | undefined };

/** The repository's templates folder (absent inside a compiled binary). */
export const TEMPLATES_DIR = resolve(import.meta.dir, "../../templates");

/** What a template module that exports a function receives. */
export const templateApi = {
  defineTemplate, t, fields, wave, sum, valueAt, mix, lighten, darken, luminance, readableOn, firstSentence, phrasesFrom,
};
export type TemplateApi = typeof templateApi;

const ID = /^[a-z0-9][a-z0-9-]{0,47}$/;

function check(def: TemplateDefinition, source: string): void {
  const m = def.meta;
  const bad = (what: string) => {
    throw new Error(`template ${source}: ${what}`);
  };
  if (!m || typeof m !== "object") bad("meta is missing");
  if (typeof m.id !== "string" || !ID.test(m.id)) bad(`meta.id must be lowercase letters, digits and dashes, not ${JSON.stringify(m.id)}`);
  if (typeof m.name !== "string" || !m.name.trim()) bad("meta.name is missing");
  if (typeof m.description !== "string") bad("meta.description is missing");
  if (!(m.aspect in ASPECT_SIZES)) bad(`meta.aspect must be one of ${Object.keys(ASPECT_SIZES).join(", ")}`);
  if (!(typeof m.duration === "number" && m.duration >= 1 && m.duration <= 60)) bad("meta.duration must be 1 to 60 seconds");
  if (!(Number.isInteger(m.credits) && m.credits >= 1)) bad("meta.credits must be a whole number of at least 1");
  if (m.fps !== undefined && !(Number.isInteger(m.fps) && m.fps >= 10 && m.fps <= 60)) bad("meta.fps must be 10 to 60");
  if (m.posterAt !== undefined && !(m.posterAt >= 0 && m.posterAt < m.duration)) bad("meta.posterAt must fall inside the video");
  if (!def.prompt || (def.prompt as { type?: string }).type !== "object") bad("prompt must be a TypeBox object (t.Object)");
  if (typeof def.build !== "function") bad("build is missing");
  if (def.strings && !def.strings.en) bad("strings must include English (en), the fallback language");
}

function languagesOf(def: TemplateDefinition): string[] {
  const own = def.strings;
  const keys = Object.keys(own?.en ?? {});
  const extra = Object.keys(own ?? {}).filter((l) => !(LANGUAGES as readonly string[]).includes(l) && l in BUILTIN_STRINGS);
  return [...LANGUAGES, ...extra].filter((l) => keys.every((k) => own?.[l]?.[k] !== undefined));
}

function jsonSchema(schema: TObject): Record<string, unknown> {
  // Symbol keys (TypeBox's kinds) vanish in JSON; `error` is our own wording for messages, not part of the contract.
  return JSON.parse(JSON.stringify(schema, (k, v) => (k === "error" ? undefined : v)));
}

function validator(schema: TObject) {
  return (prompt: unknown): { ok: true } | { ok: false; problems: PromptProblem[] } => {
    if (prompt === null || typeof prompt !== "object" || Array.isArray(prompt)) {
      return { ok: false, problems: [{ field: "", message: "must be an object" }] };
    }
    const problems: PromptProblem[] = [];
    const seen = new Set<string>();
    for (const e of Value.Errors(schema, prompt)) {
      const field = e.path.replace(/^\//, "").replaceAll("/", ".");
      if (seen.has(field)) continue;
      seen.add(field);
      const custom = (e.schema as { error?: unknown }).error;
      let message = typeof custom === "string" ? custom : e.message;
      if (message === "Unexpected property") message = "is not a known field";
      problems.push({ field, message });
    }
    return problems.length === 0 ? { ok: true } : { ok: false, problems };
  };
}

function load(def: TemplateDefinition, source: string): LoadedTemplate {
  check(def, source);
  // Unknown prompt fields are refused unless a template says otherwise.
  const schema = def.prompt as TObject & { additionalProperties?: unknown };
  if (schema.additionalProperties === undefined) schema.additionalProperties = false;
  const size = ASPECT_SIZES[def.meta.aspect as Aspect];
  return {
    info: {
      id: def.meta.id,
      name: def.meta.name,
      description: def.meta.description,
      width: size.width,
      height: size.height,
      fps: fpsOf(def),
      duration: def.meta.duration,
      credits: def.meta.credits,
      premium: def.meta.premium === true,
      aspect: def.meta.aspect,
      languages: languagesOf(def),
    },
    promptSchema: jsonSchema(schema),
    validatePrompt: validator(schema),
    definition: def,
    source,
  };
}

async function definitionOf(mod: { default?: unknown }, source: string): Promise<TemplateDefinition> {
  let def = mod.default;
  if (typeof def === "function") def = await (def as (api: TemplateApi) => unknown)(templateApi);
  if (!isTemplateDefinition(def)) throw new Error(`template ${source}: the module must default-export defineTemplate({ meta, prompt, build })`);
  return def;
}

const TEMPLATE_FILE = /^[^._][^/]*\.(ts|js|mjs)$/;

export async function loadTemplates(dirs?: string[]): Promise<TemplateRegistry> {
  const byId = new Map<string, LoadedTemplate>();
  const add = (tpl: LoadedTemplate) => {
    const prev = byId.get(tpl.info.id);
    if (prev) throw new Error(`template id "${tpl.info.id}" is defined twice: ${prev.source} and ${tpl.source}`);
    byId.set(tpl.info.id, tpl);
  };
  for (const dir of dirs ?? [TEMPLATES_DIR]) {
    const abs = resolve(dir);
    if (abs === TEMPLATES_DIR && !existsSync(abs)) {
      const { BUILTIN_TEMPLATES } = await import("./builtin");
      for (const def of BUILTIN_TEMPLATES) add(load(def, `builtin:${def.meta.id}`));
      continue;
    }
    let names: string[];
    try {
      names = await readdir(abs);
    } catch (e) {
      throw new Error(`cannot read the templates folder ${abs}: ${(e as Error).message}`);
    }
    for (const name of names.sort()) {
      if (!TEMPLATE_FILE.test(name) || name.endsWith(".d.ts") || /\.(test|spec)\./.test(name)) continue;
      const file = join(abs, name);
      const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
      add(load(await definitionOf(mod, file), file));
    }
  }
  const list = [...byId.values()];
  return { list: () => [...list], get: (id) => byId.get(id) };
}

let defaultRegistry: Promise<TemplateRegistry> | null = null;
/** Previews made without a cache of their own (a service passes its own, sized by VITRIN_PREVIEW_CACHE_BYTES). */
const sharedPreviews = new PreviewCache();

/** The registry of the repository's templates, loaded once. */
export function defaultTemplates(): Promise<TemplateRegistry> {
  defaultRegistry ??= loadTemplates().catch((e) => {
    defaultRegistry = null;
    throw e;
  });
  return defaultRegistry;
}

/**
 * A PNG of the template's poster frame, at half size, made with the bundled sample product (its name and
 * description in the language) through the same scene the renderer uses. Cached per template and base language in
 * a byte-bounded LRU; callers facing the network check the language first (only supported ones make keys).
 */
export async function previewImage(
  templateId: string,
  opts?: { language?: string; registry?: TemplateRegistry; ffmpegPath?: string; scale?: number; cache?: PreviewCache },
): Promise<Uint8Array> {
  const language = baseLanguage(opts?.language ?? "en");
  const scale = opts?.scale ?? 0.5;
  const key = `${templateId}\u0000${language}\u0000${scale}`;
  const cache = opts?.cache ?? sharedPreviews;
  return cache.getOrMake(key, () => makePreview(templateId, language, scale, opts?.registry, opts?.ffmpegPath));
}

async function makePreview(templateId: string, language: string, scale: number, registry?: TemplateRegistry, ffmpegPath?: string): Promise<Uint8Array> {
  const reg = registry ?? (await defaultTemplates());
  const tpl = reg.get(templateId);
  if (!tpl) throw new Error(`unknown template "${templateId}"`);
  const dir = await mkdtemp(join(tmpdir(), "vitrin-preview-"));
  try {
    const product = await writeSampleProduct(dir, language);
    const def = tpl.definition;
    const posterAt = def.meta.posterAt ?? def.meta.duration * 0.75;
    const job = await prepareRender({
      definition: def,
      product,
      prompt: samplePrompt(language),
      language,
      scale,
      workDir: dir,
      startFrame: Math.round(posterAt * fpsOf(def)),
    });
    const proc = Bun.spawn(
      [ffmpegPath ?? process.env.VITRIN_FFMPEG_PATH ?? "ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", ...job.inputs,
        "-filter_complex", job.filter, "-map", job.output, "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "pipe:1"],
      // A preview is one frame: if ffmpeg is still busy after a minute, something is wrong.
      { stdout: "pipe", stderr: "pipe", stdin: "ignore", timeout: 60_000, killSignal: "SIGKILL" },
    );
    const [png, err, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0 || png.length === 0) throw new Error(`ffmpeg failed to make the preview of ${templateId}: ${err.trim().split("\n").slice(-3).join(" ")}`);
    return png;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
