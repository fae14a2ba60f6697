// A template's preview: its poster frame as a PNG, made with the bundled sample product (its name and description in
// the language) through the same scene a render uses, by one single-frame ffmpeg run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PreviewRequest } from "../../src/plugins";
import { baseLanguage, fpsOf, type TemplateRegistry } from "../../src/plugins/renderer-kit";
import { asStill } from "./scene/compile";
import { prepareRender } from "./prepare";
import { samplePrompt, writeSampleProduct } from "./sample";

export type PreviewDeps = { ffmpeg: () => string; templates: TemplateRegistry };

export async function previewFrame(deps: PreviewDeps, req: PreviewRequest): Promise<Uint8Array> {
  const tpl = deps.templates.get(req.templateId);
  if (!tpl) throw new Error(`unknown template "${req.templateId}"`);
  const language = baseLanguage(req.language ?? "en");
  const ffmpeg = deps.ffmpeg();
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
      scale: req.scale ?? 0.5,
      workDir: dir,
      startFrame: Math.round(posterAt * fpsOf(def)),
    });
    const proc = Bun.spawn(
      [ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", ...job.inputs,
        "-filter_complex", asStill(job, "png").filter, "-map", asStill(job, "png").output, "-frames:v", "1", "-f", "image2pipe", "-c:v", "png", "pipe:1"],
      // A preview is one frame: if ffmpeg is still busy after a minute, something is wrong.
      { stdout: "pipe", stderr: "pipe", stdin: "ignore", timeout: 60_000, killSignal: "SIGKILL" },
    );
    const [png, err, code] = await Promise.all([new Response(proc.stdout).bytes(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0 || png.length === 0) throw new Error(`ffmpeg failed to make the preview of ${req.templateId}: ${err.trim().split("\n").slice(-3).join(" ")}`);
    return png;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
