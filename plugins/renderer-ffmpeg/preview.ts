// Single frames of a render as PNG: a template's preview (its poster frame made with the bundled sample product, in
// the language, or with the caller's own product and copy), stills of any prepared render (contact sheets, checks),
// each by one single-frame ffmpeg run; the layout check, which prepares the layers without running ffmpeg; and the
// start-up check of folder templates, which runs that layout check in every format.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, type LayoutCheckRequest, type LayoutProblem, type PreviewRequest } from "../../src/plugins";
import { ASPECTS, baseLanguage, fpsOf, type TemplateRegistry } from "../../src/plugins/renderer-kit";
import { asStill } from "./scene/compile";
import { inputOf, prepareRender, type RenderInput, type RenderJob } from "./prepare";
import { sampleCopy, samplePrompt, writeSampleProduct } from "./sample";

export type PreviewDeps = { ffmpeg: () => string; templates: TemplateRegistry };

/** The first frame a prepared job produces (its `startFrame`), as a PNG. */
export async function stillOf(ffmpeg: string, job: RenderJob, what = "the frame"): Promise<Uint8Array> {
  const still = asStill(job, "png");
  const proc = Bun.spawn(
    [ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", ...job.inputs,
      "-filter_complex", still.filter, "-map", still.output, "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "pipe:1"],
    // A still is one frame: if ffmpeg is still busy after a minute, something is wrong.
    { stdout: "pipe", stderr: "pipe", stdin: "ignore", timeout: 60_000, killSignal: "SIGKILL" },
  );
  const [png, err, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0 || png.length === 0) throw new Error(`ffmpeg failed to make ${what}: ${err.trim().split("\n").slice(-3).join(" ")}`);
  return png;
}

/** A still of a render at a moment (default: the template's poster time), prepared in `input.workDir`. */
export async function stillFrame(ffmpeg: string, input: Omit<RenderInput, "startFrame">, atSeconds?: number, what?: string): Promise<{ png: Uint8Array; job: RenderJob }> {
  const def = input.definition;
  const at = atSeconds ?? def.meta.posterAt ?? def.meta.duration * 0.75;
  const job = await prepareRender({ ...input, startFrame: Math.round(at * fpsOf(def)) });
  return { png: await stillOf(ffmpeg, job, what ?? `a still of ${def.meta.id}`), job };
}

/**
 * The poster frame as a PNG: of the caller's product, copy and brand when the request carries them (POST
 * /v1/videos/preview), else of the sample product in the language (a template's own preview).
 */
export async function previewFrame(deps: PreviewDeps, req: PreviewRequest): Promise<Uint8Array> {
  const tpl = deps.templates.get(req.templateId);
  if (!tpl) throw new Error(`unknown template "${req.templateId}"`);
  const own = req.product !== undefined;
  const language = own ? (req.language ?? "en") : baseLanguage(req.language ?? "en");
  const dir = await mkdtemp(join(tmpdir(), "vitrin-preview-"));
  try {
    const product = req.product ?? (await writeSampleProduct(dir, language));
    const { png } = await stillFrame(deps.ffmpeg(), {
      definition: tpl.definition,
      product,
      prompt: own ? (req.prompt ?? {}) : samplePrompt(language),
      language,
      aspect: req.aspect,
      logoPath: req.logoPath,
      font: req.font,
      scale: req.scale ?? 0.5,
      workDir: dir,
    }, undefined, `the preview of ${req.templateId}`);
    return png;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The layout problems of a render (layers made in `req.workDir`, text measured; ffmpeg does not run). */
export async function checkLayout(templates: TemplateRegistry, req: LayoutCheckRequest, forAuthor = false): Promise<LayoutProblem[]> {
  return (await prepareRender({ ...inputOf(templates, req), layoutOnly: true, forAuthor })).problems;
}

/** An error's words on one line (a start-up error is one line of the log). */
const oneLine = (e: unknown) => String((e as Error)?.message ?? e).replace(/\s+/g, " ").trim();

/**
 * Lays out every template loaded from a folder (VITRIN_TEMPLATE_DIRS) with the sample product and the sample copy in
 * English in every format, so a template whose build() throws, or whose layout is broken in a format (a headline
 * below the 9:16 safe area), stops the start with its file, the format and the problem named, instead of refusing
 * every shop request in that format with a 422 the shop cannot fix. The formats are laid out side by side (no ffmpeg
 * runs, pictures at a quarter size); built-in templates are tested and left out.
 */
export async function checkFolderTemplates(templates: TemplateRegistry): Promise<void> {
  const folder = templates.list().filter((tpl) => !tpl.source.startsWith("builtin:"));
  if (folder.length === 0) return;
  const dir = await mkdtemp(join(tmpdir(), "vitrin-template-check-"));
  try {
    const product = await writeSampleProduct(dir);
    for (const tpl of folder) {
      const prompt = sampleCopy((tpl.promptSchema.properties ?? {}) as Parameters<typeof sampleCopy>[0], "en", "short");
      // The template's own format first, so a build() that throws everywhere is reported there.
      const aspects = [tpl.info.aspect, ...ASPECTS.filter((a) => a !== tpl.info.aspect)];
      const results = await Promise.allSettled(aspects.map((aspect) =>
        checkLayout(templates, { templateId: tpl.info.id, product, prompt, language: "en", aspect, scale: 0.25, workDir: join(dir, tpl.info.id, aspect.replace(":", "x")) }, true)));
      results.forEach((r, i) => {
        const where = `the template ${tpl.source}`;
        if (r.status === "rejected") throw new ConfigError(`VITRIN_TEMPLATE_DIRS: ${where} failed to build with the sample product: ${oneLine(r.reason)} (in the ${aspects[i]} format)`);
        const [first, ...more] = r.value;
        if (first) {
          const also = more.length ? ` (and ${more.length} more)` : "";
          throw new ConfigError(`VITRIN_TEMPLATE_DIRS: ${where} does not lay out in the ${aspects[i]} format with the sample product and copy in English: ${oneLine(first.message)} (its text is ${first.field})${also}`);
        }
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
