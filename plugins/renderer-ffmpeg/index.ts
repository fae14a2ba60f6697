// The ffmpeg renderer: a template's scene becomes an H.264 MP4 and a JPEG thumbnail, checked from the MP4's boxes; its
// previews are the poster frame as a PNG, and its layout check finds copy that cannot be laid out before anything runs.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { definePlugin, type PluginContext, type RendererPlugin } from "../../src/plugins";
import type { TemplateRegistry } from "../../src/plugins/renderer-kit";
import { checkFolderTemplates, checkLayout, previewFrame } from "./preview";
import { findTools, toolReadiness } from "./readiness";
import { ffmpegSettings, type FfmpegSettings } from "./settings";
import { renderVideo } from "./video";

export { RenderError } from "./ffmpeg";
export { encoderArgs, ffmpegArgs, thumbnailArgs } from "./video";
export { prepareRender, withDefaults, type RenderInput, type RenderJob } from "./prepare";
export { checkLayout, previewFrame, stillFrame, stillOf } from "./preview";
export { fieldOf, layoutProblems, settledMoments, LayoutLedger } from "./layout";
export { sampleCopy, samplePrompt, writeSampleProduct, type SampleProduct } from "./sample";
export { cleanText, renderTextImage, type TextImage } from "./text";
export { ensureFonts, FONT_FILES, fontCopyPath } from "./fonts";

export type FfmpegRendererOptions = {
  /** ffmpeg and ffprobe executables: names looked up on PATH, or paths (default "ffmpeg", "ffprobe"). */
  ffmpegPath?: string;
  ffprobePath?: string;
  /** Wall-clock limit of one ffmpeg run (default 10 minutes). */
  timeoutMs?: number;
  /** libx264 threads (default 0: ffmpeg decides from the cores). */
  threads?: number;
  /** The templates to render (the service's registry: built-in ones and those of VITRIN_TEMPLATE_DIRS). */
  templates: TemplateRegistry;
  /**
   * A file remembering the last good tool check, keyed by the executables' paths, sizes and times: starting ffmpeg
   * three times costs ~0.3 s of CPU, which a restart with unchanged tools need not pay again.
   */
  checkCacheFile?: string;
};

export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

export function createFfmpegRenderer(options: FfmpegRendererOptions): RendererPlugin {
  const tools = () => findTools(options.ffmpegPath ?? "ffmpeg", options.ffprobePath ?? "ffprobe");
  const readiness = toolReadiness(tools, options.checkCacheFile);
  const video = { tools, templates: options.templates, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, threads: options.threads ?? 0 };
  return {
    slot: "renderer",
    name: "ffmpeg",
    async init() {
      // The ffmpeg checks run while the rest of the service starts, so the first /readyz need not wait for them.
      void readiness.check();
      await checkFolderTemplates(options.templates);
    },
    ready: () => readiness.ready(),
    render: (req) => renderVideo(video, req),
    preview: (req) => previewFrame({ ffmpeg: () => tools().ffmpeg, templates: options.templates }, req),
    check: (req) => checkLayout(options.templates, req),
  };
}

/** Options from the plugin's settings (VITRIN_FFMPEG_PATH, VITRIN_FFPROBE_PATH, VITRIN_RENDER_THREADS) and the core's VITRIN_RENDER_TIMEOUT_MS. */
export function optionsFrom(ctx: PluginContext<FfmpegSettings>): FfmpegRendererOptions {
  const { config, settings } = ctx;
  const ffprobeBeside = settings.ffmpegPath && !settings.ffprobePath ? join(dirname(settings.ffmpegPath), "ffprobe") : null;
  return {
    ffmpegPath: settings.ffmpegPath ?? undefined,
    ffprobePath: settings.ffprobePath ?? (ffprobeBeside && existsSync(ffprobeBeside) ? ffprobeBeside : undefined),
    timeoutMs: config.renderTimeoutMs,
    threads: settings.threads,
    templates: ctx.templates,
    checkCacheFile: join(config.dataDir, "cache", "ffmpeg-check.json"),
  };
}

export default definePlugin({
  slot: "renderer",
  name: "ffmpeg",
  description: "Renders template videos with the system's ffmpeg (H.264 MP4 and a JPEG thumbnail).",
  settings: ffmpegSettings,
  create: (ctx) => createFfmpegRenderer(optionsFrom(ctx)),
});
