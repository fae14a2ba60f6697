// The sound of a render: the chosen track cut to the video's length, faded in and out, brought to -14 LUFS by
// one gain measured on that very cut, limited below -1 dBTP, and encoded as AAC-LC 48 kHz stereo beside the video.
import { basename, join } from "node:path";
import { isEmbeddedPath, type RenderMusic } from "../../src/plugins";
import { RenderError } from "./ffmpeg";
import committed from "../../music/loudness.json";

export const TARGET_LUFS = -14;
const BEATS_PER_BAR = 4;
const FADE_IN = 0.15;
/** The fade out lasts one bar, at most this long. */
const MAX_FADE_OUT = 1.5;

export type AudioPlan = { seconds: number; bars: number; fadeIn: number; fadeOut: number; loop: boolean };

/**
 * How the music plays in a video of `duration` seconds: to the video's last frame, fading out over its last bar (at
 * most MAX_FADE_OUT). Cutting it to the whole bars that fit left up to a bar of silence under the call to action,
 * which sounds broken on a looping Reel; the fade makes the mid-bar end sound meant. The track loops when the video is
 * longer. `bars`: the whole bars that fit, for the record.
 */
export function planAudio(duration: number, bpm: number, trackSeconds: number): AudioPlan {
  const bar = (BEATS_PER_BAR * 60) / bpm;
  const bars = Math.floor(duration / bar + 1e-9);
  const seconds = duration;
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

/**
 * Integrated loudness of the shaped cut, by ffmpeg's ebur128 filter (the EBU R128 measure, the same the tests and
 * players use). Only the cut is decoded (`-t`): loudnorm's analysis over the whole track cost ~5× the CPU (it
 * resamples to 192 kHz for its true peak, which the limiter after the gain takes care of anyway).
 */
export async function loudnessOf(ffmpeg: string, file: string, plan: AudioPlan, signal: AbortSignal): Promise<number> {
  const loop = plan.loop ? ["-stream_loop", "-1"] : [];
  const out = await run(ffmpeg, [...loop, "-t", r(plan.seconds), "-i", file, "-af", `${shapeChain(plan)},ebur128`, "-f", "null", "-"], signal);
  const summary = out.slice(out.lastIndexOf("Integrated loudness:"));
  const lufs = Number(/I:\s*(-?[\d.]+)\s*LUFS/.exec(summary)?.[1]);
  if (!Number.isFinite(lufs) || lufs <= -70) throw new RenderError("the music track is silent", "failed");
  return lufs;
}

/** Measured gains by track and plan: a template's videos all share one cut of their track. */
const gains = new Map<string, number>();
/** The SHA-256 of each track file read so far (its key in music/loudness.json). */
const hashes = new Map<string, string>();

/**
 * Forgets the measured gains and track hashes, so the next render starts as in a fresh process (bench:render times
 * renders cold): a cut in music/loudness.json is still not measured, as it is not in a fresh process either.
 */
export function forgetMeasuredGains(): void {
  gains.clear();
  hashes.clear();
}

/** The SHA-256 (hex) of a track file's bytes. */
export async function trackHash(file: string): Promise<string> {
  let hash = hashes.get(file);
  if (hash === undefined) {
    hash = new Bun.CryptoHasher("sha256").update(await Bun.file(file).arrayBuffer()).digest("hex");
    hashes.set(file, hash);
  }
  return hash;
}

/** A cut's name in music/loudness.json: its filter chain, and whether the track loops under it. */
export const cutKey = (p: AudioPlan) => `${shapeChain(p)}${p.loop ? ",loop" : ""}`;

/** What music/loudness.json holds: by track hash, the file it was measured on and the LUFS of each cut. */
export type LoudnessTable = Record<string, { file: string; cuts: Record<string, number> }>;

/**
 * The loudness of a cut: from music/loudness.json when the shipped tracks were measured on it beforehand (the same
 * ebur128 measure, committed by scripts/music-loudness.ts and checked by a test), else measured now. A template's
 * own track needs no ffmpeg run then: ~0.08 s of CPU a render, most of it ffmpeg's start-up.
 */
async function cutLoudness(ffmpeg: string, track: string, file: string, plan: AudioPlan, signal: AbortSignal): Promise<number> {
  const known = (committed as LoudnessTable)[await trackHash(track)]?.cuts[cutKey(plan)];
  return known ?? (await loudnessOf(ffmpeg, file, plan, signal));
}

export type AudioArgs = { inputs: string[]; filter: string; map: string[]; codec: string[] };

/** A track ready to go into an encode: the file ffmpeg reads, its cut and the gain measured on that cut. */
export type PreparedAudio = { file: string; plan: AudioPlan; gain: number; duration: number };

/**
 * The music measured for a video of `duration` seconds. It needs nothing of the scene, so a render runs it while
 * its layers are being made.
 */
export async function prepareAudio(ffmpeg: string, music: RenderMusic, o: { duration: number; workDir: string; signal: AbortSignal }): Promise<PreparedAudio> {
  // ffmpeg cannot read a file embedded in a compiled binary: it gets a copy on disk.
  const file = isEmbeddedPath(music.file) ? join(o.workDir, basename(music.file)) : music.file;
  // copyfile(2) cannot read the executable's embedded files: Bun's own file API can.
  if (file !== music.file) await Bun.write(file, Bun.file(music.file));
  const plan = planAudio(o.duration, music.bpm, music.seconds);
  const key = `${music.file}|${plan.seconds}|${plan.loop}`;
  let gain = gains.get(key);
  if (gain === undefined) {
    gain = TARGET_LUFS - (await cutLoudness(ffmpeg, music.file, file, plan, o.signal));
    gains.set(key, gain);
  }
  return { file, plan, gain, duration: o.duration };
}

/**
 * The ffmpeg pieces that add the music to an encode after its video inputs: an input (only the cut is decoded), a
 * filter chain ending in [aout], its map and the AAC encoder settings.
 */
export function audioArgs(a: PreparedAudio, videoInputs: string[]): AudioArgs {
  // alimiter's ceiling is a sample peak: 0.75 (-2.5 dBFS) keeps the true peak after AAC under -1 dBTP (0.79 let one
  // shipped track's 7 s cut reach -0.6 dBTP; every track's template cuts measure -1.6 or lower with 0.75, loudness
  // unchanged).
  const filter =
    `[${videoInputs.filter((x) => x === "-i").length}:a]${shapeChain(a.plan)},volume=${a.gain.toFixed(2)}dB,` +
    `alimiter=limit=0.75:level=disabled:attack=1:release=30,apad=whole_dur=${r(a.duration)},` +
    `aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo[aout]`;
  return {
    inputs: [...(a.plan.loop ? ["-stream_loop", "-1"] : []), "-t", r(a.plan.seconds), "-i", a.file],
    filter,
    map: ["-map", "[aout]"],
    // The "fast" coder: at this bitrate its maintainer found it sounds as good as the default two-loop search, which
    // took ~0.17 s more CPU for 8 s of music in ffmpeg's main thread, serial with composing the frames.
    codec: ["-c:a", "aac", "-aac_coder", "fast", "-profile:a", "aac_low", "-b:a", "160k", "-ar", "48000", "-ac", "2"],
  };
}
