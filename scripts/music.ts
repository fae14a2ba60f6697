// Renders vitrin's music tracks: music/scores.ts → music/midi/<id>.mid (a small Standard MIDI File writer below) →
// fluidsynth with FluidR3_GM → cut to whole bars, normalised to -14 LUFS with headroom, Opus at 48 kHz stereo, and
// music/tracks.json. Needs Debian's fluidsynth and fluid-soundfont-gm (only here: the rendered tracks are committed).
// Run: bun run scripts/music.ts
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { BEATS_PER_BAR, SCORES, type Score } from "../music/scores";

const ROOT = join(import.meta.dir, "..");
const MUSIC = join(ROOT, "music");
const SOUNDFONT = process.env.SOUNDFONT ?? "/usr/share/sounds/sf2/FluidR3_GM.sf2";
const TICKS = 480;
/** Loudness the tracks are stored at; the renderer measures each cut again and applies one exact gain. */
const TARGET_LUFS = -14;
const LICENSE = "vitrin composition (same licence as vitrin); FluidR3_GM samples, MIT";

/** A MIDI variable-length quantity. */
function varLength(value: number): number[] {
  const bytes = [value & 0x7f];
  while ((value >>= 7) > 0) bytes.unshift((value & 0x7f) | 0x80);
  return bytes;
}

function chunk(type: string, body: number[]): number[] {
  const n = body.length;
  return [...Buffer.from(type, "ascii"), (n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255, ...body];
}

/** One MIDI track chunk from (tick, event bytes) pairs, sorted, note-offs before note-ons at the same tick. */
function trackChunk(events: { tick: number; order: number; bytes: number[] }[]): number[] {
  events.sort((a, b) => a.tick - b.tick || a.order - b.order);
  const body: number[] = [];
  let last = 0;
  for (const e of events) {
    body.push(...varLength(e.tick - last), ...e.bytes);
    last = e.tick;
  }
  body.push(0, 0xff, 0x2f, 0);
  return chunk("MTrk", body);
}

/** A format-1 Standard MIDI File: a tempo track, then one track per part. */
export function midiFile(score: Score): Uint8Array {
  const tempo = Math.round(60_000_000 / score.bpm);
  const tempoTrack = trackChunk([
    { tick: 0, order: 0, bytes: [0xff, 0x51, 3, (tempo >> 16) & 255, (tempo >> 8) & 255, tempo & 255] },
    { tick: 0, order: 0, bytes: [0xff, 0x58, 4, BEATS_PER_BAR, 2, 24, 8] },
  ]);
  const parts = score.parts.map((part) => {
    const ch = part.channel;
    const events = [
      { tick: 0, order: 0, bytes: [0xb0 | ch, 7, part.volume] },
      ...(ch === 9 ? [] : [{ tick: 0, order: 0, bytes: [0xc0 | ch, part.program] }]),
    ];
    for (const n of part.notes) {
      const on = Math.round(n.at * TICKS);
      const off = Math.max(on + 1, Math.round((n.at + n.beats) * TICKS));
      events.push({ tick: on, order: 2, bytes: [0x90 | ch, n.pitch, Math.max(1, Math.min(127, n.velocity))] });
      events.push({ tick: off, order: 1, bytes: [0x80 | ch, n.pitch, 0] });
    }
    return trackChunk(events);
  });
  const header = chunk("MThd", [0, 1, 0, parts.length + 1, (TICKS >> 8) & 255, TICKS & 255]);
  return new Uint8Array([...header, ...tempoTrack, ...parts.flat()]);
}

async function run(cmd: string[]): Promise<string> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd[0]} failed (${code}): ${err.slice(-2000)}`);
  return out + err;
}

/** Integrated loudness and true peak of a file, by ffmpeg's loudnorm analysis. */
async function measure(file: string, filter = "anull"): Promise<{ lufs: number; truePeak: number }> {
  const out = await run(["ffmpeg", "-hide_banner", "-nostdin", "-i", file, "-af", `${filter},loudnorm=print_format=json`, "-f", "null", "-"]);
  const json = JSON.parse(out.slice(out.lastIndexOf("{"), out.lastIndexOf("}") + 1)) as { input_i: string; input_tp: string };
  return { lufs: Number(json.input_i), truePeak: Number(json.input_tp) };
}

async function renderTrack(score: Score, tmp: string) {
  const midi = join(MUSIC, "midi", `${score.id}.mid`);
  await Bun.write(midi, midiFile(score));
  const wav = join(tmp, `${score.id}.wav`);
  await run(["fluidsynth", "-ni", "-q", "-g", "0.5", "-r", "48000", "-F", wav, SOUNDFONT, midi]);
  // Exactly the score's bars: a loop of the track then restarts on its first bar.
  const seconds = (score.bars * BEATS_PER_BAR * 60) / score.bpm;
  const cut = `atrim=0:${seconds},asetpts=N/SR/TB`;
  const before = await measure(wav, cut);
  const gain = TARGET_LUFS - before.lufs;
  const file = `${score.id}.opus`;
  await run([
    "ffmpeg", "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-i", wav,
    "-af", `${cut},volume=${gain.toFixed(2)}dB,alimiter=limit=0.84:level=disabled:attack=2:release=40,aresample=48000`,
    "-ac", "2", "-c:a", "libopus", "-b:a", "160k", "-vbr", "on", "-map_metadata", "-1", join(MUSIC, file),
  ]);
  const after = await measure(join(MUSIC, file));
  console.log(`${score.id}: ${seconds.toFixed(2)} s, ${after.lufs} LUFS, TP ${after.truePeak} dBTP`);
  return { id: score.id, title: score.title, mood: score.mood, bpm: score.bpm, duration_seconds: Math.round(seconds * 1000) / 1000, license: LICENSE, file };
}

if (import.meta.main) {
  const tmp = join(ROOT, ".music-render");
  await mkdir(join(MUSIC, "midi"), { recursive: true });
  await mkdir(tmp, { recursive: true });
  const tracks = [];
  for (const score of SCORES) tracks.push(await renderTrack(score, tmp));
  await Bun.write(join(MUSIC, "tracks.json"), `${JSON.stringify(tracks, null, 2)}\n`);
  await rm(tmp, { recursive: true, force: true });
}
