// Measures the loudness of every built-in track's cut for every built-in template (the cut a render of that template
// plays) and writes music/loudness.json, so a render of a shipped track needs no ffmpeg run to measure it. Run it
// after changing a track, a template's duration or the cut (planAudio); test/music-loudness.test.ts checks the file.
// Run: bun run scripts/music-loudness.ts
import { join } from "node:path";
import { cutKey, loudnessOf, planAudio, trackHash, type LoudnessTable } from "../plugins/renderer-ffmpeg/audio";
import { fpsOf } from "../src/plugins/renderer-kit";
import { createMusic } from "../src/music";
import { BUILTIN_TEMPLATES } from "../templates";

const table: LoudnessTable = {};
const signal = new AbortController().signal;
for (const track of createMusic().list()) {
  const cuts: Record<string, number> = {};
  for (const def of Object.values(BUILTIN_TEMPLATES)) {
    // The video's length as a render gives it to the music (video.ts, startAudio).
    const duration = Math.round(def.meta.duration * fpsOf(def)) / fpsOf(def);
    const plan = planAudio(duration, track.bpm, track.duration_seconds);
    cuts[cutKey(plan)] = await loudnessOf("ffmpeg", track.path, plan, signal);
  }
  table[await trackHash(track.path)] = { file: track.file, cuts };
}
await Bun.write(join(import.meta.dir, "..", "music", "loudness.json"), `${JSON.stringify(table, null, 2)}\n`);
console.log(`music/loudness.json: ${Object.values(table).reduce((n, t) => n + Object.keys(t.cuts).length, 0)} cuts of ${Object.keys(table).length} tracks`);
