// One render: the template's scene prepared as layers, then encoded by ffmpeg to an H.264 MP4 beside a one-frame
// JPEG thumbnail, checked (the MP4's own boxes, mp4.ts) before the files take their final names.
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { RenderRequest, RenderResult } from "../../src/plugins";
import { fpsOf, type TemplateRegistry } from "../../src/plugins/renderer-kit";
import { RenderError, runFfmpeg } from "./ffmpeg";
import { mp4Facts } from "./mp4";
import { inputOf, prepareRender, type RenderJob } from "./prepare";
import { asStill } from "./scene/compile";
import { audioArgs, prepareAudio, type AudioArgs, type PreparedAudio } from "./audio";
import type { Tools } from "./readiness";

export type VideoDeps = { tools: () => Tools; templates: TemplateRegistry; timeoutMs: number; threads: number };

const formatMs = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

/** The encoder settings every render uses (the benchmark encodes its baseline with the same). */
export function encoderArgs(threads: number): string[] {
  return [
    "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p",
    // veryfast refines motion vectors one step further (subme 2) and looks for up to 3 B-frames in a row; the scenes
    // are mostly still pictures and a few smooth moves, where neither bought anything: subme 1 took 15-25 % less CPU
    // for the same file size and SSIM, and one B-frame 3-14 % less again for the same SSIM (within 0.0002) and files
    // 1-7 % larger (docs/benchmarks.md, bench:render).
    "-x264-params", "subme=1:bframes=1",
    // The scene is converted to BT.709 TV range (scene/compile.ts); the tags tell players so.
    "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
    "-threads", String(threads), "-movflags", "+faststart",
  ];
}

/** The whole ffmpeg command line of a job, writing the video to `videoFile`. */
export function ffmpegArgs(job: RenderJob, videoFile: string, threads: number, audio?: AudioArgs | null): string[] {
  return [
    "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-nostats", "-progress", "pipe:1",
    ...job.inputs,
    ...(audio?.inputs ?? []),
    "-filter_complex_threads", "1",
    "-filter_complex", audio ? `${job.filter};${audio.filter}` : job.filter,
    "-map", job.output, "-frames:v", String(job.frames), "-r", String(job.fps),
    ...(audio ? [...audio.map, ...audio.codec] : []),
    ...encoderArgs(threads), "-f", "mp4", videoFile,
  ];
}

/** The thumbnail: the scene composed at the poster frame only (one frame, straight from the layers). */
export function thumbnailArgs(job: RenderJob, thumbFile: string): string[] {
  const still = asStill(job.poster, "jpeg");
  return [
    "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-nostats", "-progress", "pipe:1",
    ...still.inputs,
    "-filter_complex_threads", "1",
    "-filter_complex", still.filter,
    "-map", still.output, "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "2", "-f", "image2", thumbFile,
  ];
}

/** The layers of a render, made before ffmpeg starts; an abort meanwhile reads as the render's cancellation. */
async function prepare(deps: VideoDeps, req: RenderRequest): Promise<RenderJob> {
  const input = inputOf(deps.templates, req);
  const cancelled = () => new RenderError("the render was cancelled before ffmpeg started", "aborted");
  if (req.signal.aborted) throw cancelled();
  req.onProgress(0);
  try {
    return await prepareRender(input);
  } catch (e) {
    if (req.signal.aborted) throw cancelled();
    throw e;
  }
}

/**
 * The encode and the thumbnail, run side by side (the encoder leaves some of the cores idle: one while it starts); if
 * either fails, the other is stopped before anything is thrown, and the first real failure explains the render. The
 * thumbnail as a second output of the encode's own run was measured and dropped: as a graph of its own it put its
 * inputs' decoding on the encode's serial start (+0.07-0.10 s of wall); split off the encode's frames, ffmpeg held
 * every frame before the poster's (~0.5 GB at 1080x1920).
 */
async function encode(deps: VideoDeps, req: RenderRequest, job: RenderJob, files: { video: string; thumb: string }, deadline: number, audio: AudioArgs | null): Promise<void> {
  const { ffmpeg } = deps.tools();
  const both = new AbortController();
  const stopBoth = () => both.abort();
  req.signal.addEventListener("abort", stopBoth, { once: true });
  const common = { timeoutLabelMs: deps.timeoutMs, signal: both.signal };
  const settled = await Promise.allSettled(
    [
      runFfmpeg(ffmpeg, ffmpegArgs(job, files.video, deps.threads, audio), { ...common, frames: job.frames, timeoutMs: deadline - Date.now(), onProgress: req.onProgress }),
      runFfmpeg(ffmpeg, thumbnailArgs(job, files.thumb), { ...common, frames: 1, timeoutMs: deadline - Date.now() }),
    ].map((run) => run.catch((e) => {
      both.abort();
      throw e;
    })),
  );
  req.signal.removeEventListener("abort", stopBoth);
  // The other run was merely stopped because of the first failure.
  const failures = settled.flatMap((r) => (r.status === "rejected" ? [r.reason as RenderError] : []));
  const cause = failures.find((e) => e.reason !== "aborted") ?? failures[0];
  if (cause) throw cause;
}

/** What is wrong with the encoded video, compared with the job (empty when it is what was asked). */
async function problemsOf(job: RenderJob, files: { video: string; thumb: string }): Promise<string[]> {
  const p = await mp4Facts(files.video);
  const problems: string[] = [];
  if (p.codec !== "h264") problems.push(`codec ${p.codec || "none"} instead of h264`);
  if (p.width !== job.width || p.height !== job.height) problems.push(`${p.width}x${p.height} instead of ${job.width}x${job.height}`);
  if (!(Math.abs(p.duration - job.duration) <= 1.5 / job.fps + 0.05)) problems.push(`${p.duration} s instead of ${job.duration} s`);
  if (!(await Bun.file(files.thumb).exists())) problems.push("no thumbnail");
  return problems;
}

/** The music measured while the layers are made (it needs only the video's length); null without music. */
function startAudio(deps: VideoDeps, req: RenderRequest): Promise<PreparedAudio | null> {
  const def = deps.templates.get(req.templateId)?.definition;
  if (!req.music || !def) return Promise.resolve(null);
  const fps = fpsOf(def);
  const duration = Math.round(def.meta.duration * fps) / fps;
  const measuring = prepareAudio(deps.tools().ffmpeg, req.music, { duration, workDir: req.workDir, signal: req.signal });
  // Awaited after the layers; a failure meanwhile must not count as unhandled if preparing the layers fails first.
  measuring.catch(() => {});
  return measuring;
}

export async function renderVideo(deps: VideoDeps, req: RenderRequest): Promise<RenderResult> {
  // One deadline for the whole render: preparing the layers counts too.
  const deadline = Date.now() + deps.timeoutMs;
  const music = startAudio(deps, req);
  const job = await prepare(deps, req);
  if (Date.now() >= deadline) throw new RenderError(`render timed out after ${formatMs(deps.timeoutMs)} (while preparing its layers)`, "timeout");
  const videoPath = join(req.workDir, "video.mp4");
  const thumbnailPath = join(req.workDir, "thumbnail.jpg");
  const partial = { video: join(req.workDir, "video.partial.mp4"), thumb: join(req.workDir, "thumbnail.partial.jpg") };
  try {
    // The music (a separate part of the encode: audio.ts), measured on its cut while the layers were made.
    const measured = await music;
    const audio = measured ? audioArgs(measured, job.inputs) : null;
    await encode(deps, req, job, partial, deadline, audio);
    const problems = await problemsOf(job, partial);
    if (problems.length) throw new RenderError(`the rendered video is not what was asked: ${problems.join(", ")}`, "invalid");
    await rename(partial.video, videoPath);
    await rename(partial.thumb, thumbnailPath);
    req.onProgress(100);
    return { videoPath, thumbnailPath, durationSeconds: job.duration, width: job.width, height: job.height };
  } catch (e) {
    await Promise.all([partial.video, partial.thumb, videoPath, thumbnailPath].map((f) => rm(f, { force: true })));
    throw e;
  }
}
