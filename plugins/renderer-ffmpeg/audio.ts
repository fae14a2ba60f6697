// The sound of a render: the chosen track cut to the video on a bar line, faded in and out, brought to -14 LUFS by
// one gain measured on that very cut, limited below -1 dBTP, and encoded as AAC-LC 48 kHz stereo beside the video.
import { basename, join } from "node:path";
import type { RenderMusic } from "../../src/plugins";
import { RenderError } from "./ffmpeg";

export const TARGET_LUFS = -14;
const BEATS_PER_BAR = 4;
const FADE_IN = 0.15;
/** The fade out lasts one bar, at most this long. */
const MAX_FADE_OUT = 1.5;

export type AudioPlan = { seconds: number; bars: number; fadeIn: number; fadeOut: number; loop: boolean };

/**
 * How long the music plays in a video of `duration` seconds: the most whole bars that fit (the rest is silence, less
 * than one bar), or the whole video when it is shorter than a bar. The track loops when the video is longer.
 */
export function planAudio(duration: number, bpm: number, trackSeconds: number): AudioPlan {
  const bar = (BEATS_PER_BAR * 60) / bpm;
  const bars = Math.floor(duration / bar + 1e-9);
  const seconds = bars >= 1 ? bars * bar : duration;
  const fadeOut = Math.min(MAX_FADE_OUT, bar, seconds / 3);
  return { seconds, bars, fadeIn: Math.min(FADE_IN, seconds / 4), fadeOut, loop: seconds > trackSeconds };
}

const r = (n: number) => n.toFixed(4);

/** The cut and the fades, as an audio filter chain (no gain yet). */
const shapeChain = (p: AudioPlan) =>
  `atrim=0:${r(p.seconds)},asetpts=N/SR/TB,afade=t=in:d=${r(p.fadeIn)},afade=t=out:st=${r(p.seconds - p.fadeOut)}:d=${r(p.fadeOut)}`;

async function run(ffmpeg: string, args: string[], signal: AbortSignal): Promise<string> {
  const proc = Bun.spawn([ffmpeg, "-hide_banner", "-nostdin", ...args], { stdout: "pipe", stderr: "pipe", signal });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (signal.aborted) throw new RenderError("the render was cancelled while measuring its music", "aborted");
  if (code !== 0) throw new RenderError(`measuring the music failed: ${err.trim().split("\n").slice(-3).join(" ")}`, "failed");
  return out + err;
}

/** Integrated loudness of the shaped cut (loudnorm's analysis, which is the EBU R128 measure). */
async function loudnessOf(ffmpeg: string, file: string, plan: AudioPlan, signal: AbortSignal): Promise<number> {
  const loop = plan.loop ? ["-stream_loop", "-1"] : [];
  const out = await run(ffmpeg, [...loop, "-i", file, "-af", `${shapeChain(plan)},loudnorm=print_format=json`, "-f", "null", "-"], signal);
  const json = out.slice(out.lastIndexOf("{"), out.lastIndexOf("}") + 1);
  const lufs = Number((JSON.parse(json) as { input_i: string }).input_i);
  if (!Number.isFinite(lufs)) throw new RenderError("the music track is silent", "failed");
  return lufs;
}

/** Measured gains by track and plan: a template's videos all share one cut of their track. */
const gains = new Map<string, number>();

export type AudioArgs = { inputs: string[]; filter: string; map: string[]; codec: string[] };

/**
 * The ffmpeg pieces that add the music to an encode after its video inputs: an input, a filter
 * chain ending in [aout], its map and the AAC encoder settings.
 */
export async function prepareAudio(
  ffmpeg: string,
  music: RenderMusic,
  o: { duration: number; videoInputs: string[]; workDir: string; signal: AbortSignal },
): Promise<AudioArgs> {
  // ffmpeg cannot read a file embedded in a compiled binary: it gets a copy on disk.
  const file = music.file.startsWith("/$bunfs/") ? join(o.workDir, basename(music.file)) : music.file;
  // copyfile(2) cannot read the executable's embedded files: Bun's own file API can.
  if (file !== music.file) await Bun.write(file, Bun.file(music.file));
  const plan = planAudio(o.duration, music.bpm, music.seconds);
  const key = `${music.file}|${plan.seconds}|${plan.loop}`;
  let gain = gains.get(key);
  if (gain === undefined) {
    gain = TARGET_LUFS - (await loudnessOf(ffmpeg, file, plan, o.signal));
    gains.set(key, gain);
  }
  // alimiter's ceiling is a sample peak: 0.79 (-2 dBFS) keeps the true peak after AAC under -1 dBTP.
  const filter =
    `[${o.videoInputs.filter((a) => a === "-i").length}:a]${shapeChain(plan)},volume=${gain.toFixed(2)}dB,` +
    `alimiter=limit=0.79:level=disabled:attack=1:release=30,apad=whole_dur=${r(o.duration)},` +
    `aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo[aout]`;
  return {
    inputs: [...(plan.loop ? ["-stream_loop", "-1"] : []), "-i", file],
    filter,
    map: ["-map", "[aout]"],
    codec: ["-c:a", "aac", "-profile:a", "aac_low", "-b:a", "160k", "-ar", "48000", "-ac", "2"],
  };
}
