// Music (issue 20 point 5): the shipped tracks, the sound of a rendered video (AAC-LC 48 kHz stereo, -14 LUFS,
// true peak under -1 dBTP, cut on a bar line), GET /v1/music, and the `music` choice of create video and estimate.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFfmpegRenderer } from "../plugins/renderer-ffmpeg";
import { planAudio } from "../plugins/renderer-ffmpeg/audio";
import { createMusic } from "../src/music";
import { loadTemplates, type TemplateRegistry } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";
import { productPhoto, startService, storedBytes, type TestService } from "./helpers";
import { cutoutProduct, type FixtureProduct } from "./fixtures/render/product";

let registry: TemplateRegistry;
let dir: string;
let product: FixtureProduct;

beforeAll(async () => {
  registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
  dir = mkdtempSync(join(tmpdir(), "vitrin-music-test-"));
  product = await cutoutProduct(join(dir, "product"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ffmpegText(args: string[]): string {
  const out = Bun.spawnSync(["ffmpeg", "-hide_banner", "-nostdin", ...args, "-f", "null", "-"]);
  return out.stderr.toString();
}

function audioStreams(path: string) {
  const out = Bun.spawnSync(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name,profile,sample_rate,channels", "-of", "json", path]);
  return (JSON.parse(out.stdout.toString()) as { streams: { codec_name: string; profile: string; sample_rate: string; channels: number }[] }).streams;
}

/** Integrated loudness (LUFS) and true peak (dBTP) by ffmpeg's ebur128 filter. */
function loudness(path: string): { integrated: number; truePeak: number } {
  const text = ffmpegText(["-i", path, "-map", "0:a", "-af", "ebur128=peak=true", "-vn"]);
  const summary = text.slice(text.lastIndexOf("Summary:"));
  return { integrated: Number(/I:\s+(-?[\d.]+) LUFS/.exec(summary)![1]), truePeak: Number(/Peak:\s+(-?[\d.]+) dBFS/.exec(summary)![1]) };
}

/** Where the sound goes silent for good (the end of the music), by silencedetect. */
function silenceStart(path: string): number | null {
  const text = ffmpegText(["-i", path, "-map", "0:a", "-af", "silencedetect=noise=-60dB:d=0.05", "-vn"]);
  const starts = [...text.matchAll(/silence_start: (-?[\d.]+)/g)].map((m) => Number(m[1]));
  return starts.length ? starts[starts.length - 1]! : null;
}

describe("the shipped tracks", () => {
  test("at least six tracks of 30 s or more, one for each built-in template's mood", () => {
    const music = createMusic();
    expect(music.list().length).toBeGreaterThanOrEqual(6);
    for (const track of music.list()) expect(track.duration_seconds).toBeGreaterThanOrEqual(30);
    const ids = new Set(registry.list().map((tpl) => music.choose("auto", tpl.info.id)!.id));
    expect(ids.size).toBe(registry.list().length);
  });

  test("the music plays to the video's end, fading out over its last bar (at most 1.5 s), looped past the track", () => {
    // 8 s at 128 bpm: 4 whole bars (7.5 s) fit, and the music goes on to 8 s instead of leaving half a bar silent.
    expect(planAudio(8, 128, 33.75)).toMatchObject({ bars: 4, seconds: 8, fadeOut: 1.5, loop: false });
    expect(planAudio(12, 96, 32.5)).toMatchObject({ bars: 4, seconds: 12 });
    expect(planAudio(1, 72, 33.3)).toMatchObject({ seconds: 1, fadeOut: 1 / 3 });
    expect(planAudio(60, 120, 32)).toMatchObject({ bars: 30, seconds: 60, loop: true });
  });
});

describe("a rendered video's sound", () => {
  test("AAC-LC 48 kHz stereo at -14 ± 1 LUFS, true peak at most -1 dBTP, sounding to the video's end", async () => {
    const track = createMusic().get("spark")!;
    const workDir = join(dir, "render");
    mkdirSync(workDir, { recursive: true });
    const renderer = createFfmpegRenderer({ templates: registry });
    const result = await renderer.render({
      workDir, templateId: "flash-sale", product, prompt: { price: 24.5 }, language: "en", scale: 0.25,
      music: { file: track.path, bpm: track.bpm, seconds: track.duration_seconds },
      signal: new AbortController().signal, onProgress: () => {},
    });
    expect(audioStreams(result.videoPath)).toEqual([{ codec_name: "aac", profile: "LC", sample_rate: "48000", channels: 2 }]);
    const { integrated, truePeak } = loudness(result.videoPath);
    expect(Math.abs(integrated - -14)).toBeLessThanOrEqual(1);
    expect(truePeak).toBeLessThanOrEqual(-1);
    // flash-sale lasts 8 s; a bar at 128 bpm is 1.875 s, so 4 whole bars end at 7.5 s: the music goes on, fading out,
    // until the last tenth of a second (no half bar of silence under the call to action).
    const end = silenceStart(result.videoPath);
    if (end !== null) expect(end).toBeGreaterThan(result.durationSeconds - 0.1);
  }, 60_000);
});

describe("over the API", () => {
  let t: TestService;
  afterEach(async () => {
    await t?.close();
  });

  async function setup() {
    t = await startService({}, { renderScale: 0.25 });
    const acct = await t.newAccount({ credits: 20 });
    const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 800, 600)).toString("base64")}`;
    const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Stoneware Mug", description: "Hand glazed", image_url: image } });
    await t.runJobs();
    return { acct, productId: product.body.id as string };
  }

  test("GET /v1/music lists the tracks", async () => {
    const { acct } = await setup();
    const res = await t.json("GET", "/v1/music", { token: acct.token });
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.data.length).toBeGreaterThanOrEqual(6);
    for (const track of res.body.data) {
      expect(Object.keys(track).sort()).toEqual(["bpm", "duration_seconds", "id", "license", "mood", "title"]);
    }
  });

  test("an unknown track is 422 naming music, at create and estimate, and charges nothing", async () => {
    const { acct, productId } = await setup();
    const body = { template_id: "showcase", product_id: productId, music: "no-such-track" };
    for (const path of ["/v1/videos", "/v1/videos/estimate"]) {
      const res = await t.json("POST", path, { token: acct.token, body });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body.details)).toContain('"music"');
    }
    expect((await t.json("GET", "/v1/balance", { token: acct.token })).body.credits).toBe(20);
  });

  test('music "none" makes a video without an audio stream; the default has one', async () => {
    const { acct, productId } = await setup();
    const none = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: productId, music: "none" } });
    const auto = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: productId } });
    expect([none.status, auto.status]).toEqual([202, 202]);
    await t.runJobs();
    const file = async (id: string) => {
      const video = (await t.json("GET", `/v1/videos/${id}`, { token: acct.token })).body;
      expect(video.status).toBe("completed");
      const path = join(dir, `${id}.mp4`);
      await Bun.write(path, (await storedBytes(t, video.video_url))!);
      return path;
    };
    expect(audioStreams(await file(none.body.id))).toEqual([]);
    expect(audioStreams(await file(auto.body.id))).toHaveLength(1);
  }, 120_000);
});
