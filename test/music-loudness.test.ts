// The committed loudness of the shipped tracks (music/loudness.json): it covers every built-in template's cut of
// every built-in track, each value is what ebur128 measures on that cut, and a render takes it instead of measuring.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import table from "../music/loudness.json";
import { cutKey, forgetMeasuredGains, loudnessOf, planAudio, prepareAudio, TARGET_LUFS, trackHash, type LoudnessTable } from "../plugins/renderer-ffmpeg/audio";
import { fpsOf } from "../src/plugins/renderer-kit";
import { createMusic } from "../src/music";
import { BUILTIN_TEMPLATES } from "../templates";

const committed = table as LoudnessTable;
const tracks = createMusic().list();
const signal = new AbortController().signal;
/** The video length a render hands the music (video.ts, startAudio). */
const durations = BUILTIN_TEMPLATES.map((def) => Math.round(def.meta.duration * fpsOf(def)) / fpsOf(def));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vitrin-music-loudness-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("music/loudness.json holds exactly the built-in templates' cuts of the built-in tracks (run scripts/music-loudness.ts after changing either)", async () => {
  const expected: Record<string, string[]> = {};
  for (const track of tracks) {
    const keys = durations.map((d) => cutKey(planAudio(d, track.bpm, track.duration_seconds)));
    expected[await trackHash(track.path)] = [...new Set(keys)].sort();
  }
  const actual = Object.fromEntries(Object.entries(committed).map(([hash, t]) => [hash, Object.keys(t.cuts).sort()]));
  expect(actual).toEqual(expected);
});

test("each committed loudness is what ebur128 measures on that cut", async () => {
  const differing: string[] = [];
  for (const track of tracks) {
    const cuts = committed[await trackHash(track.path)]?.cuts ?? {};
    for (const d of new Set(durations)) {
      const plan = planAudio(d, track.bpm, track.duration_seconds);
      const measured = await loudnessOf("ffmpeg", track.path, plan, signal);
      if (cuts[cutKey(plan)] !== measured) differing.push(`${track.id} ${d} s: committed ${cuts[cutKey(plan)]}, measured ${measured}`);
    }
  }
  expect(differing).toEqual([]);
});

test("a render of a template's own cut takes the committed loudness and runs no ffmpeg to measure it", async () => {
  forgetMeasuredGains();
  const track = tracks[0]!;
  const plan = planAudio(durations[0]!, track.bpm, track.duration_seconds);
  const music = { file: track.path, bpm: track.bpm, seconds: track.duration_seconds };
  const prepared = await prepareAudio(join(dir, "no-ffmpeg"), music, { duration: durations[0]!, workDir: dir, signal });
  expect(prepared.gain).toBe(TARGET_LUFS - committed[await trackHash(track.path)]!.cuts[cutKey(plan)]!);
});

test("a cut that is not committed is measured by ffmpeg", async () => {
  forgetMeasuredGains();
  const track = tracks[0]!;
  const music = { file: track.path, bpm: track.bpm, seconds: track.duration_seconds };
  const odd = Math.max(...durations) + 7;
  await expect(prepareAudio(join(dir, "no-ffmpeg"), music, { duration: odd, workDir: dir, signal })).rejects.toThrow();
  const measured = await prepareAudio("ffmpeg", music, { duration: odd, workDir: dir, signal });
  expect(measured.gain).toBe(TARGET_LUFS - (await loudnessOf("ffmpeg", track.path, planAudio(odd, track.bpm, track.duration_seconds), signal)));
});
