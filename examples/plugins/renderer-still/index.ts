// An example renderer plugin loaded from a folder: the product image, still, centred on a plain background, for the
// template's size and duration, encoded with ffmpeg. It ignores the template's scene (no text, no motion), so it suits
// hosts that want the cheapest possible video, and shows what a renderer must do: size, duration, progress, abort,
// clean-up. Copy the folder next to the vitrin binary (plugins/renderer-still/) and start with VITRIN_RENDERER=still.
//
// Settings (declared below, so vitrin checks them at start and lists them; a folder plugin's are named VITRIN_PLUGIN_<NAME>_<SETTING>):
//   VITRIN_PLUGIN_STILL_FFMPEG      optional: the ffmpeg executable, a name on PATH or a path (default "ffmpeg")
//   VITRIN_PLUGIN_STILL_BACKGROUND  optional: the background colour as #rrggbb (default #f4f1ea)
//
// Only types are imported from vitrin (erased at run time), because a compiled binary has no node_modules to import
// from. Check it with test/conformance/renderer.ts.
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { PluginHost } from "../../../src/plugins/host";
import type { RendererPlugin, RenderRequest, RenderResult } from "../../../src/plugins";

/** Share of the frame's width and height the product may take. */
const PRODUCT_SHARE = 0.7;

const even = (v: number) => Math.max(2, Math.round(v / 2) * 2);
/** The video formats of RenderRequest.aspect, in pixels at scale 1. */
const FORMATS: Record<NonNullable<RenderRequest["aspect"]>, { width: number; height: number }> = {
  "9:16": { width: 1080, height: 1920 },
  "4:5": { width: 1080, height: 1350 },
  "1:1": { width: 1080, height: 1080 },
  "16:9": { width: 1920, height: 1080 },
};

function aborted(): Error {
  const e = new Error("the render was cancelled");
  e.name = "AbortError";
  return e;
}

/** Runs ffmpeg with `-progress pipe:1`, reporting 0…99 as frames come out; killed at once when `signal` aborts. */
async function encode(ffmpeg: string, args: string[], frames: number, req: RenderRequest): Promise<void> {
  const proc = Bun.spawn([ffmpeg, "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-nostats", "-progress", "pipe:1", ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    signal: req.signal,
    killSignal: "SIGKILL",
  });
  const errors = new Response(proc.stderr).text();
  let last = 0;
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    for (const m of decoder.decode(chunk, { stream: true }).matchAll(/^frame=(\d+)$/gm)) {
      const percent = Math.min(99, Math.floor((Number(m[1]) / frames) * 100));
      if (percent > last) req.onProgress((last = percent));
    }
  }
  const code = await proc.exited;
  if (req.signal.aborted) throw aborted();
  if (code !== 0) throw new Error(`ffmpeg failed: ${(await errors).trim().split("\n").slice(-2).join(" | ") || `exit code ${code}`}`);
}

export default function stillRenderer(host: PluginHost) {
  return host.definePlugin({
    slot: "renderer",
    name: "still",
    description: "Example plugin: the product image, still, on a plain background (ffmpeg; ignores the template's scene).",
    settings: {
      ffmpeg: {
        env: "VITRIN_PLUGIN_STILL_FFMPEG",
        default: "ffmpeg",
        doc: "Example still-image renderer plugin: the ffmpeg executable, a name on PATH or a path.",
        parse: (raw: string) => raw.trim() || "ffmpeg",
      },
      background: {
        env: "VITRIN_PLUGIN_STILL_BACKGROUND",
        default: "#f4f1ea",
        doc: "Example still-image renderer plugin: the background colour as #rrggbb.",
        parse: (raw: string) => raw.trim(),
      },
    },
    create(ctx): RendererPlugin {
      const { ffmpeg: ffmpegSetting, background } = ctx.settings;
      const ffmpeg = () => {
        const found = ffmpegSetting.includes("/") ? ffmpegSetting : Bun.which(ffmpegSetting);
        if (!found) throw new Error(`ffmpeg was not found (${ffmpegSetting}); install it or set VITRIN_PLUGIN_STILL_FFMPEG`);
        return found;
      };

      return {
        slot: "renderer",
        name: "still",
        async init() {
          if (!/^#[0-9a-f]{6}$/i.test(background)) throw new Error("VITRIN_PLUGIN_STILL_BACKGROUND must be a colour like #f4f1ea");
        },
        async ready() {
          try {
            return { ok: true, detail: `encoding with ${ffmpeg()}` };
          } catch (e) {
            return { ok: false, detail: (e as Error).message };
          }
        },
        async render(req): Promise<RenderResult> {
          const template = ctx.templates.get(req.templateId);
          if (!template) throw new Error(`unknown template "${req.templateId}"`);
          if (req.signal.aborted) throw aborted();
          if (!(await Bun.file(req.product.imagePath).exists())) throw new Error(`the product image does not exist: ${req.product.imagePath}`);
          const { fps, duration } = template.info;
          const scale = req.scale ?? 1;
          // The format asked for, else the template's own (a still has no layout to recompose: the product is centred).
          const size = req.aspect ? FORMATS[req.aspect] : template.info;
          const [width, height] = [even(size.width * scale), even(size.height * scale)];
          const frames = Math.round(duration * fps);
          req.onProgress(0);
          const videoPath = join(req.workDir, "video.mp4");
          const thumbnailPath = join(req.workDir, "thumbnail.jpg");
          const [videoTmp, thumbTmp] = [join(req.workDir, "video.partial.mp4"), join(req.workDir, "thumbnail.partial.jpg")];
          const fit = `scale=w=${even(width * PRODUCT_SHARE)}:h=${even(height * PRODUCT_SHARE)}:force_original_aspect_ratio=decrease`;
          const graph = `[1:v]${fit},format=rgba[p];[0:v][p]overlay=x=(W-w)/2:y=(H-h)/2:shortest=1,format=yuv420p,split[v][t]`;
          try {
            await encode(
              ffmpeg(),
              [
                "-f", "lavfi", "-i", `color=c=0x${background.slice(1)}:s=${width}x${height}:r=${fps}:d=${duration}`,
                "-loop", "1", "-framerate", String(fps), "-i", req.product.imagePath,
                "-filter_complex", graph,
                "-map", "[v]", "-frames:v", String(frames), "-r", String(fps), "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", videoTmp,
                "-map", "[t]", "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "3", "-f", "image2", thumbTmp,
              ],
              frames,
              req,
            );
            await rename(videoTmp, videoPath);
            await rename(thumbTmp, thumbnailPath);
          } catch (e) {
            await Promise.all([videoTmp, thumbTmp, videoPath, thumbnailPath].map((f) => rm(f, { force: true })));
            throw e;
          }
          req.onProgress(100);
          return { videoPath, thumbnailPath, durationSeconds: duration, width, height };
        },
      };
    },
  });
}
