// One render: the template's scene prepared as layers, then encoded by one ffmpeg run to an H.264 MP4 and its JPEG
// thumbnail, checked (the MP4's own boxes, mp4.ts) before the files take their final names.
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { RenderRequest, RenderResult } from "../../src/plugins";
import { fpsOf, type TemplateRegistry } from "../../src/plugins/renderer-kit";
import { RenderError, runFfmpeg } from "./ffmpeg";
import { mp4Facts } from "./mp4";
import { inputOf, prepareRender, type RenderJob } from "./prepare";
import { asStill, shiftGraph } from "./scene/compile";
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

/**
 * The whole ffmpeg command line of a job: the video to `files.video` and, as a second output of the same run, the
 * thumbnail to `files.thumb`, from the scene compiled to end at the poster frame (its own inputs and a graph of its own
 * in the same filtergraph). A run of its own cost ~0.15 s of CPU a render, a third of it ffmpeg's start-up. Splitting
 * the encode's frames instead made ffmpeg hold every frame before the poster's (~0.5 GB at 1080×1920, +0.6 s).
 */
export function ffmpegArgs(job: RenderJob, files: { video: string; thumb: string }, threads: number, audio?: AudioArgs | null): string[] {
  const inputs = [...job.inputs, ...(audio?.inputs ?? [])];
  const poster = shiftGraph(asStill(job.poster, "jpeg"), inputs.filter((a) => a === "-i").length, "poster_");
  return [
    "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-nostats", "-progress", "pipe:1",
    ...inputs,
    ...poster.inputs,
    "-filter_complex_threads", "1",
    "-filter_complex", [job.filter, ...(audio ? [audio.filter] : []), poster.filter].join(";\n"),
    "-map", job.output, "-frames:v", String(job.frames), "-r", String(job.fps),
    ...(audio ? [...audio.map, ...audio.codec] : []),
    ...encoderArgs(threads), "-f", "mp4", files.video,
    "-map", poster.output, "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "2", "-f", "image2", files.thumb,
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

/** The encode (video and thumbnail in one ffmpeg run); an abort of the render stops it. */
async function encode(deps: VideoDeps, req: RenderRequest, job: RenderJob, files: { video: string; thumb: string }, deadline: number, audio: AudioArgs | null): Promise<void> {
  const { ffmpeg } = deps.tools();
  await runFfmpeg(ffmpeg, ffmpegArgs(job, files, deps.threads, audio), {
    timeoutLabelMs: deps.timeoutMs,
    signal: req.signal,
    frames: job.frames,
    timeoutMs: deadline - Date.now(),
    onProgress: req.onProgress,
  });
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
