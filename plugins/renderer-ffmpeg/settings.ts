// The ffmpeg renderer's settings (which ffmpeg and ffprobe, encoder threads), read at start through the plugin kit and
// listed in the configuration table. The render time limit (VITRIN_RENDER_TIMEOUT_MS) is the core's: it holds for any renderer.
import { integer, optionalText, type PluginSettings } from "../../src/plugins";

export type FfmpegSettings = {
  ffmpegPath: string | null;
  ffprobePath: string | null;
  threads: number;
};

export const ffmpegSettings: PluginSettings<FfmpegSettings> = {
  ffmpegPath: {
    env: "VITRIN_FFMPEG_PATH",
    unset: "",
    default: "(ffmpeg on PATH)",
    doc: "The ffmpeg executable the renderer runs.",
    parse: optionalText,
  },
  ffprobePath: {
    env: "VITRIN_FFPROBE_PATH",
    unset: "",
    default: "(ffprobe beside VITRIN_FFMPEG_PATH, else on PATH)",
    doc: "The ffprobe executable whose version /readyz reports (a rendered video is checked from the MP4's own boxes, without it).",
    parse: optionalText,
  },
  threads: {
    env: "VITRIN_RENDER_THREADS",
    default: "0",
    doc: "Threads one render's H.264 encoder may use; 0 lets ffmpeg choose.",
    parse: integer(0, 256),
  },
};
