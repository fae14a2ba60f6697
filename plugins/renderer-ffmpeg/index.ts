// The ffmpeg renderer: a template's scene becomes an H.264 MP4 and a JPEG thumbnail, checked with ffprobe.
import { rename, rm } from "node:fs/promises";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { definePlugin, type PluginContext, type ReadyReport, type RendererPlugin, type RenderRequest, type RenderResult } from "../../src/plugins";
import { loadTemplates, prepareRender, type RenderJob, type TemplateRegistry } from "../../src/templates";
import { hasEncoder, probe, RenderError, resolveTool, runFfmpeg, toolVersion } from "./ffmpeg";

export { RenderError } from "./ffmpeg";

export type FfmpegRendererOptions = {
  /** ffmpeg and ffprobe executables: names looked up on PATH, or paths (default "ffmpeg", "ffprobe"). */
  ffmpegPath?: string;
  ffprobePath?: string;
  /** Wall-clock limit of one ffmpeg run (default 10 minutes). */
  timeoutMs?: number;
  /** libx264 threads (default 0: ffmpeg decides from the cores). */
  threads?: number;
  /** The templates to render, or folders to load them from (default: the repository's templates). */
  templates?: TemplateRegistry | string[];
  /**
   * A file remembering the last good tool check, keyed by the executables' paths, sizes and times: starting ffmpeg
   * three times costs ~0.3 s of CPU, which a restart with unchanged tools need not pay again.
   */
  checkCacheFile?: string;
};

export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

const formatMs = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

/** The encoder settings every render uses (the benchmark encodes its baseline with the same). */
export function encoderArgs(threads: number): string[] {
  return ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", "-threads", String(threads), "-movflags", "+faststart"];
}

/** The whole ffmpeg command line of a job, writing the video to `videoFile`. */
export function ffmpegArgs(job: RenderJob, videoFile: string, threads: number): string[] {
  return [
    "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-nostats", "-progress", "pipe:1",
    ...job.inputs,
    "-filter_complex_threads", "1",
    "-filter_complex", job.filter,
    "-map", job.output, "-frames:v", String(job.frames), "-r", String(job.fps),
    ...encoderArgs(threads), "-f", "mp4", videoFile,
  ];
}

/** The thumbnail: the scene composed at the poster frame only (one frame, straight from the layers). */
export function thumbnailArgs(job: RenderJob, thumbFile: string): string[] {
  return [
    "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-nostats", "-progress", "pipe:1",
    ...job.poster.inputs,
    "-filter_complex_threads", "1",
    "-filter_complex", job.poster.filter,
    "-map", job.poster.output, "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "2", "-f", "image2", thumbFile,
  ];
}

function readCheck(file: string, key: string): ReadyReport | null {
  try {
    const saved = JSON.parse(readFileSync(file, "utf8")) as { key: string; report: ReadyReport };
    return saved.key === key && saved.report?.ok === true ? saved.report : null;
  } catch {
    return null;
  }
}

function writeCheck(file: string, key: string, report: ReadyReport): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key, report }));
    renameSync(tmp, file);
  } catch {
    // Only a cache: the next start checks the tools again.
  }
}

export function createFfmpegRenderer(options: FfmpegRendererOptions = {}): RendererPlugin {
  const ffmpegName = options.ffmpegPath ?? "ffmpeg";
  const ffprobeName = options.ffprobePath ?? "ffprobe";
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const threads = options.threads ?? 0;
  let registry: Promise<TemplateRegistry> | null = null;
  const templates = () => {
    if (!registry) {
      const t = options.templates;
      registry = (t && !Array.isArray(t) ? Promise.resolve(t) : loadTemplates(t)).catch((e) => {
        registry = null;
        throw e;
      });
    }
    return registry;
  };
  const tools = () => {
    const ffmpeg = resolveTool(ffmpegName);
    const ffprobe = resolveTool(ffprobeName);
    if (!ffmpeg) throw new Error(`ffmpeg was not found (${ffmpegName}); install it or set VITRIN_FFMPEG_PATH`);
    if (!ffprobe) throw new Error(`ffprobe was not found (${ffprobeName}); install it or set VITRIN_FFPROBE_PATH`);
    return { ffmpeg, ffprobe };
  };
  let readiness: { at: number; report: ReadyReport } | null = null;
  let probing: Promise<ReadyReport> | null = null;
  const checkTools = (): Promise<ReadyReport> =>
    (probing ??= (async () => {
      let report: ReadyReport;
      try {
        const { ffmpeg, ffprobe } = tools();
        const key = [ffmpeg, ffprobe].map((f) => {
          const st = statSync(f);
          return `${f}:${st.size}:${st.mtimeMs}`;
        }).join("|");
        const remembered = options.checkCacheFile ? readCheck(options.checkCacheFile, key) : null;
        if (remembered) {
          report = remembered;
        } else {
          const [v, pv, x264] = await Promise.all([toolVersion(ffmpeg), toolVersion(ffprobe), hasEncoder(ffmpeg, "libx264")]);
          report = x264
            ? { ok: true, detail: `ffmpeg ${v} with libx264, ffprobe ${pv}` }
            : { ok: false, detail: `ffmpeg ${v} has no libx264 encoder` };
          if (report.ok && options.checkCacheFile) writeCheck(options.checkCacheFile, key, report);
        }
      } catch (e) {
        report = { ok: false, detail: (e as Error).message };
      }
      readiness = { at: Date.now(), report };
      probing = null;
      return report;
    })());

  return {
    slot: "renderer",
    name: "ffmpeg",
    async init() {
      // The ffmpeg checks run while the rest of the service starts, so the first /readyz need not wait for them.
      void checkTools();
      await templates();
    },
    async ready() {
      // /readyz may be polled often; spawning ffmpeg three times a poll is not worth it.
      if (readiness && Date.now() - readiness.at < 30_000) return readiness.report;
      return checkTools();
    },
    async render(req: RenderRequest): Promise<RenderResult> {
      const { ffmpeg, ffprobe } = tools();
      const tpl = (await templates()).get(req.templateId);
      if (!tpl) throw new Error(`unknown template "${req.templateId}"`);
      // One deadline for the whole render: preparing the layers counts too.
      const deadline = Date.now() + timeoutMs;
      const cancelled = () => new RenderError("the render was cancelled before ffmpeg started", "aborted");
      if (req.signal.aborted) throw cancelled();
      req.onProgress(0);
      let job: RenderJob;
      try {
        job = await prepareRender({
          definition: tpl.definition,
          product: req.product,
          prompt: req.prompt,
          language: req.language,
          scale: req.scale,
          workDir: req.workDir,
          signal: req.signal,
        });
      } catch (e) {
        if (req.signal.aborted) throw cancelled();
        throw e;
      }
      if (Date.now() >= deadline) throw new RenderError(`render timed out after ${formatMs(timeoutMs)} (while preparing its layers)`, "timeout");
      const videoPath = join(req.workDir, "video.mp4");
      const thumbnailPath = join(req.workDir, "thumbnail.jpg");
      const videoTmp = join(req.workDir, "video.partial.mp4");
      const thumbTmp = join(req.workDir, "thumbnail.partial.jpg");
      const cleanup = () => Promise.all([videoTmp, thumbTmp, videoPath, thumbnailPath].map((f) => rm(f, { force: true })));
      try {
        // The thumbnail is composed by a second, one-frame ffmpeg beside the encode (the encoder leaves some of
        // the cores idle); if either fails, the other is stopped before anything is thrown or cleaned up.
        const both = new AbortController();
        const stopBoth = () => both.abort();
        req.signal.addEventListener("abort", stopBoth, { once: true });
        const settled = await Promise.allSettled(
          [
            runFfmpeg(ffmpeg, ffmpegArgs(job, videoTmp, threads), {
              frames: job.frames,
              timeoutMs: deadline - Date.now(),
              timeoutLabelMs: timeoutMs,
              signal: both.signal,
              onProgress: req.onProgress,
            }),
            runFfmpeg(ffmpeg, thumbnailArgs(job, thumbTmp), {
              frames: 1,
              timeoutMs: deadline - Date.now(),
              timeoutLabelMs: timeoutMs,
              signal: both.signal,
            }),
          ].map((run) => run.catch((e) => {
            both.abort();
            throw e;
          })),
        );
        req.signal.removeEventListener("abort", stopBoth);
        // The first real failure explains the render; the other run was merely stopped because of it.
        const failures = settled.flatMap((r) => (r.status === "rejected" ? [r.reason as RenderError] : []));
        const cause = failures.find((e) => e.reason !== "aborted") ?? failures[0];
        if (cause) throw cause;
        const p = await probe(ffprobe, videoTmp);
        const problems: string[] = [];
        if (p.codec !== "h264") problems.push(`codec ${p.codec || "none"} instead of h264`);
        if (p.width !== job.width || p.height !== job.height) problems.push(`${p.width}x${p.height} instead of ${job.width}x${job.height}`);
        if (!(Math.abs(p.duration - job.duration) <= 1.5 / job.fps + 0.05)) problems.push(`${p.duration} s instead of ${job.duration} s`);
        if (!(await Bun.file(thumbTmp).exists())) problems.push("no thumbnail");
        if (problems.length) throw new RenderError(`the rendered video is not what was asked: ${problems.join(", ")}`, "invalid");
        await rename(videoTmp, videoPath);
        await rename(thumbTmp, thumbnailPath);
        req.onProgress(100);
        return { videoPath, thumbnailPath, durationSeconds: job.duration, width: job.width, height: job.height };
      } catch (e) {
        await cleanup();
        throw e;
      }
    },
  };
}

/** Settings from the service config: VITRIN_RENDER_TIMEOUT_MS, VITRIN_FFMPEG_PATH, VITRIN_FFPROBE_PATH, VITRIN_RENDER_THREADS. */
export function optionsFrom(ctx: PluginContext): FfmpegRendererOptions {
  const { config } = ctx;
  const ffprobeBeside = config.ffmpegPath && !config.ffprobePath ? join(dirname(config.ffmpegPath), "ffprobe") : null;
  return {
    ffmpegPath: config.ffmpegPath ?? undefined,
    ffprobePath: config.ffprobePath ?? (ffprobeBeside && existsSync(ffprobeBeside) ? ffprobeBeside : undefined),
    timeoutMs: config.renderTimeoutMs,
    threads: config.renderThreads,
    templates: ctx.templates,
    checkCacheFile: join(config.dataDir, "cache", "ffmpeg-check.json"),
  };
}

export default definePlugin({
  slot: "renderer",
  name: "ffmpeg",
  description: "Renders template videos with the system's ffmpeg (H.264 MP4 and a JPEG thumbnail).",
  create: (ctx) => createFfmpegRenderer(optionsFrom(ctx)),
});
