// Proof, not taste (issue 20 point 11): every built-in template in every format, in en, tr, ar and ja, with short and long
// copy, rendered with its music through the production renderer and checked by measurement: the layout engine's own
// boxes (inside the safe area, apart, fitted), contrast on the rendered poster frame, no frozen span (freezedetect),
// loudness and true peak (ebur128), the exact frame count and the BT.709 tags.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFfmpegRenderer, sampleCopy, stillFrame, writeSampleProduct } from "../plugins/renderer-ffmpeg";
import { frameContrast } from "../plugins/renderer-ffmpeg/frame-contrast";
import { createMusic } from "../src/music";
import { ASPECTS, loadTemplates, type Aspect, type TemplateRegistry } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";
import { inLanes } from "./support/lanes";

// The matrix uses no database or storage: the PostgreSQL + S3 pass would only render the same videos again.
const run = process.env.VITRIN_TEST_DATABASE === "postgres" ? describe.skip : describe;

const LANGUAGES = ["en", "tr", "ar", "ja"];
const COPY = ["short", "long"] as const;
/**
 * Videos at half their size: the same scene, graph and encoder settings, a quarter of the pixels. Not smaller: a slow
 * drift that moves a few pixels a second at full size would round to a standstill at a quarter, and freezedetect
 * would see a freeze no viewer sees.
 */
const SCALE = 0.5;
/** The poster still for contrast, at the same half size, where text edges are still a few pixels wide. */
const STILL_SCALE = 0.5;

let dir: string;
let registry: TemplateRegistry;
const music = createMusic();
let jobs = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vitrin-matrix-"));
  registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function output(cmd: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** What ffprobe and ffmpeg's filters say of a video: frames, tags, audio format, frozen spans, loudness, true peak. */
async function measure(videoPath: string) {
  const probe = await output(["ffprobe", "-v", "error", "-count_frames", "-of", "json", "-show_entries",
    "stream=codec_type,codec_name,profile,sample_rate,channels,nb_read_frames,color_space,color_primaries,color_transfer,color_range", videoPath]);
  const streams = JSON.parse(probe.stdout).streams as Record<string, string | number>[];
  const filters = await output(["ffmpeg", "-hide_banner", "-nostats", "-i", videoPath,
    "-filter_complex", "[0:v]freezedetect=d=1[v];[0:a]ebur128=peak=true[a]", "-map", "[v]", "-map", "[a]", "-f", "null", "-"]);
  const summary = filters.stderr.slice(filters.stderr.lastIndexOf("Summary:"));
  return {
    video: streams.find((s) => s.codec_type === "video")!,
    audio: streams.find((s) => s.codec_type === "audio"),
    frozen: filters.stderr.includes("freeze_start"),
    lufs: Number(/I:\s+(-?[\d.]+) LUFS/.exec(summary)?.[1]),
    truePeak: Number(/Peak:\s+(-?[\d.]+) dBFS/.exec(summary)?.[1]),
  };
}

/** Everything wrong with one video of the matrix, in words (empty when it passes). */
async function problemsOf(templateId: string, aspect: Aspect, language: string, copy: (typeof COPY)[number]): Promise<string[]> {
  const tpl = registry.get(templateId)!;
  const def = tpl.definition;
  const workDir = join(dir, `job-${++jobs}`);
  mkdirSync(workDir, { recursive: true });
  const product = await writeSampleProduct(join(workDir, "product"), language);
  const prompt = sampleCopy(tpl.promptSchema.properties as Record<string, { maxLength?: number }>, language, copy);
  const renderer = createFfmpegRenderer({ templates: registry });
  const base = { templateId, product, prompt, language, aspect };
  const found: string[] = [];

  const layout = await renderer.check!({ ...base, scale: SCALE, workDir: join(workDir, "check") });
  for (const p of layout) found.push(`layout: ${p.field}: ${p.message}`);

  const track = music.choose("auto", templateId)!;
  const result = await renderer.render({
    ...base, scale: SCALE, workDir, music: { file: track.path, bpm: track.bpm, seconds: track.duration_seconds },
    signal: new AbortController().signal, onProgress: () => {},
  });
  const m = await measure(result.videoPath);
  const frames = Math.round(def.meta.duration * (def.meta.fps ?? 30));
  if (Number(m.video.nb_read_frames) !== frames) found.push(`frames: ${m.video.nb_read_frames}, not ${frames}`);
  for (const key of ["color_space", "color_primaries", "color_transfer"]) if (m.video[key] !== "bt709") found.push(`${key}: ${m.video[key]}`);
  if (m.video.color_range !== "tv") found.push(`color_range: ${m.video.color_range}`);
  if (m.frozen) found.push("freezedetect found a frozen span of 1 s or more");
  if (!m.audio || m.audio.codec_name !== "aac" || m.audio.profile !== "LC" || Number(m.audio.sample_rate) !== 48000 || Number(m.audio.channels) !== 2) {
    found.push(`audio: ${JSON.stringify(m.audio)}`);
  }
  if (!(Math.abs(m.lufs + 14) <= 1)) found.push(`loudness ${m.lufs} LUFS, not -14 ± 1`);
  if (!(m.truePeak <= -1)) found.push(`true peak ${m.truePeak} dBTP, above -1`);

  const { png, job } = await stillFrame("ffmpeg", { definition: def, ...base, scale: STILL_SCALE, workDir: join(workDir, "still") });
  const posterAt = job.posterFrame / job.fps;
  for (const c of await frameContrast(png, job, posterAt)) {
    if (c.ratio < c.threshold) found.push(`contrast: ${c.layer} (${c.color}) ${c.ratio.toFixed(2)}:1 < ${c.threshold}:1`);
  }
  rmSync(workDir, { recursive: true, force: true });
  return found.map((f) => `${templateId} ${aspect} ${language} ${copy}: ${f}`);
}


run("every template × format × language × copy length", () => {
  for (const templateId of BUILTIN_TEMPLATES.map((t) => t.meta.id)) {
    for (const aspect of ASPECTS) {
      test(`${templateId} ${aspect}: layout, contrast, motion, sound, frames and colour tags in en, tr, ar, ja, short and long copy`, async () => {
        const cases = LANGUAGES.flatMap((language) => COPY.map((copy) => ({ language, copy })));
        const found = (await inLanes(cases, (c) => problemsOf(templateId, aspect, c.language, c.copy))).flat();
        expect(found).toEqual([]);
      }, 600_000);
    }
  }
});
