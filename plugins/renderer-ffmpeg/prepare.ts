// Turns a template, a product, a prompt and a language into an ffmpeg job (inputs, filtergraph, frame counts).
import { existsSync } from "node:fs";
import type { TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import {
  ASPECT_SIZES,
  baseLanguage,
  currencyFor,
  formatPercent,
  formatPrice,
  fpsOf,
  isRtl,
  makeStrings,
  renderSize,
  safeArea,
  shrinkFloor,
  type Aspect,
  type BuildContext,
  type Placement,
  type Scene,
  type TemplateDefinition,
  type TemplateRegistry,
} from "../../src/plugins/renderer-kit";
import { AssetWriter } from "./assets";
import { logoLayer } from "./logo";
import { makeReadable } from "./readability";
import { brandRole, withBrandFont } from "./brand-font";
import { compileScene, type CompiledGraph } from "./scene/compile";
import { layout } from "./scene/spans";
import { checkedScene } from "./scene/shape";
import { LayoutLedger, layoutProblems } from "./layout";
import type { LayoutCheckRequest, LayoutProblem } from "../../src/plugins";

export type RenderInput = {
  definition: TemplateDefinition;
  product: { id: string; name: string; description: string | null; imagePath: string; maskPath: string | null; cutout: boolean };
  prompt: Record<string, unknown>;
  language: string;
  /** The format (default: the template's own aspect). */
  aspect?: Aspect;
  /** The account's brand logo, laid over the scene in a corner (see logo.ts). */
  logoPath?: string;
  /** The account's brand font (a shipped family): the template's headline text takes it (see brand-font.ts). */
  font?: string;
  /** Output size factor (1 = the template's size). */
  scale?: number;
  /** Folder for the layer pictures (the render's scratch folder). */
  workDir: string;
  /** Lay out only, for the layout check: the readability pass (panels beneath texts) is left out. */
  layoutOnly?: boolean;
  /** Word the layout problems for the template's author (the folder check at start), not for a shop. */
  forAuthor?: boolean;
  /** First frame to produce: 0 for a video, a later one to make a single frame quickly (previews). */
  startFrame?: number;
  signal?: AbortSignal;
};

export type RenderJob = {
  /** ffmpeg input arguments (`-i path` pairs). */
  inputs: string[];
  /** The filtergraph; its video output is labelled `output`. */
  filter: string;
  output: string;
  width: number;
  height: number;
  fps: number;
  /** Frames the video has (duration × fps). */
  frames: number;
  duration: number;
  /** Frame index used for the thumbnail. */
  posterFrame: number;
  /** The same scene compiled to start and end at the poster frame: its one output frame is the thumbnail. */
  poster: CompiledGraph;
  rtl: boolean;
  scene: Scene;
  /** Where every layer sits at the poster frame (template pixels), for checks. */
  placements: Placement[];
  /** What the layout engine finds wrong (text cut short, outside the safe area, overlapping): see layout.ts. */
  problems: LayoutProblem[];
};

/** What a render or layout check of the service asks for, as prepareRender's input (the template looked up by id). */
export function inputOf(templates: TemplateRegistry, req: LayoutCheckRequest & { signal?: AbortSignal }): RenderInput {
  const tpl = templates.get(req.templateId);
  if (!tpl) throw new Error(`unknown template "${req.templateId}"`);
  const { product, prompt, language, aspect, logoPath, font, scale, workDir, signal } = req;
  return { definition: tpl.definition, product, prompt, language, aspect, logoPath, font, scale, workDir, signal };
}

/** The static defaults of the prompt schema applied to a copy of the prompt. */
export function withDefaults(schema: TObject, prompt: Record<string, unknown>): Record<string, unknown> {
  return Value.Default(schema, structuredClone(prompt ?? {})) as Record<string, unknown>;
}

/** A formatted price, remembered with the prompt field it came from, so a price too wide to fit is blamed on that field. */
function remembered(text: string, value: unknown, prompt: Record<string, unknown> | undefined, prices: { text: string; field: string }[]): string {
  for (const [field, given] of Object.entries(prompt ?? {})) if (given === value) prices.push({ text, field });
  return text;
}

export async function prepareRender(input: RenderInput): Promise<RenderJob> {
  const def = input.definition;
  const scale = input.scale ?? 1;
  if (!(scale > 0 && scale <= 2)) throw new Error(`scale must be between 0 and 2, not ${scale}`);
  const p = input.product;
  if (!p.imagePath || !existsSync(p.imagePath)) throw new Error(`the product image does not exist: ${p.imagePath || "(none)"}`);
  const aspect = input.aspect ?? def.meta.aspect;
  const full = ASPECT_SIZES[aspect];
  const { width, height } = renderSize(full, scale);
  const fps = fpsOf(def);
  const frames = Math.round(def.meta.duration * fps);
  const lang = baseLanguage(input.language);
  const rtl = isRtl(input.language);
  const prompt = withDefaults(def.prompt, input.prompt);
  const currency = currencyFor(lang, typeof prompt.currency === "string" ? prompt.currency : undefined);
  const headlineRole = brandRole(input.font);
  const writer = new AssetWriter(input.workDir, scale, input.language, rtl);
  const ledger = new LayoutLedger();
  const prices: { text: string; field: string }[] = [];
  const s = makeStrings(lang, def.strings);
  const numeric = (v: unknown) => (typeof v === "number" ? v : typeof v === "string" && /^\s*\d+([.,]\d+)?\s*$/.test(v) ? Number(v.replace(",", ".")) : NaN);

  const ctx: BuildContext<Record<string, unknown>> = {
    width: full.width,
    height: full.height,
    aspect,
    safe: safeArea(aspect, isRtl(input.language)),
    duration: def.meta.duration,
    fps,
    lang,
    rtl,
    scale,
    prompt,
    product: { id: p.id, name: p.name, description: p.description ?? "", cutout: p.cutout },
    s,
    price: (v) => remembered(formatPrice(v, currency, input.language), v, input.prompt, prices),
    saving(price, oldPrice) {
      const a = numeric(price);
      const b = numeric(oldPrice);
      if (!(a >= 0 && b > a)) return null;
      return `-${formatPercent((b - a) / b, input.language)}`;
    },
    // Every text shrinks no further than its floor (TEXT_FLOORS); what it became is kept for the layout check.
    async text(style) {
      const name = style.name ?? "text";
      const made = await writer.text(withBrandFont({ ...style, minSize: shrinkFloor(style, name) }, headlineRole), name);
      ledger.text(made.path, name, style, made);
      return made;
    },
    svg: (markup, w, h, name, options) => writer.svg(markup, w, h, name, options),
    async productImage(o) {
      const made = await writer.product(p, o);
      ledger.product(made.path, made.content);
      return made;
    },
    async button(o) {
      const made = await writer.button(withBrandFont(o, headlineRole));
      ledger.button(made.path, o.name ?? "button", o.text, o.size, !!made.cut);
      return made;
    },
    async group(o) {
      const made = await writer.group(o);
      ledger.group(made.path, o, rtl);
      return made;
    },
  };

  input.signal?.throwIfAborted();
  const scene = checkedScene(await def.build(ctx as never));
  for (const layer of scene.layers) if (layer) writer.checkDetail(layer.image, `layer "${layer.name ?? "layer"}"`);
  if (input.logoPath) scene.layers.push(await logoLayer(writer, input.logoPath, scene, { ...full, duration: def.meta.duration, rtl }));
  // The readability panels sit beneath texts and change no box the layout check judges: a check alone skips them.
  if (!input.layoutOnly) await makeReadable(scene, writer, { ...full, duration: def.meta.duration, rtl });
  input.signal?.throwIfAborted();
  const startFrame = Math.max(0, Math.min(frames - 1, Math.floor(input.startFrame ?? 0)));
  // A single frame (the thumbnail, a preview) is compiled as a video that ends there: compiled up to the video's end,
  // the graph composed frames up to the next change before the first came out (feature-split's thumbnail pushed 60
  // frames through the final colour conversion, ~1 s of CPU, for the same picture).
  const compileFrom = (first: number, single: boolean) =>
    compileScene(scene, { templateWidth: full.width, templateHeight: full.height, width, height, scale, fps, startFrame: first, frames: single ? first + 1 : frames, rtl });
  const graph = compileFrom(startFrame, input.startFrame !== undefined);
  const posterAt = def.meta.posterAt ?? def.meta.duration * 0.75;
  const posterFrame = Math.max(0, Math.min(frames - 1, Math.round(posterAt * fps)));
  return {
    ...graph,
    poster: compileFrom(posterFrame, true),
    width,
    height,
    fps,
    frames,
    duration: frames / fps,
    posterFrame,
    rtl,
    scene,
    placements: layout(scene, posterAt, { templateWidth: full.width, rtl, duration: def.meta.duration }),
    problems: layoutProblems(scene, ledger, { aspect, width: full.width, duration: def.meta.duration, posterAt, rtl }, { prompt: input.prompt ?? {}, product: p, prices }, input.forAuthor),
  };
}
