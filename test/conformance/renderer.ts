// The renderer slot's conformance kit: the bun:test cases every renderer plugin must pass. Each given template renders
// at a small scale to an H.264 MP4 (checked with ffprobe: codec, size, duration, not blank) and a JPEG thumbnail, with
// monotonic progress; an abort kills the work and leaves no files; unknown templates and missing images are clear
// errors. Needs ffmpeg and ffprobe on PATH. Run it from a test file with the templates your renderer offers:
// `rendererConformance("mine", async () => plugin, { cases: [{ templateId, width, height, durationSeconds }] })`.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RendererPlugin, RenderRequest, RenderResult } from "../../src/plugins";
import { writeCutoutProduct, writePhotoProduct, type KitProduct } from "./images";

export type RenderCase = {
  templateId: string;
  /** BCP 47 language of the render (default "en"). */
  language?: string;
  /** The user_prompt (default { price: 24.5, old_price: 39 }). */
  prompt?: Record<string, unknown>;
  /** What the video must measure at the kit's scale. */
  width: number;
  height: number;
  durationSeconds: number;
};

export type RendererConformanceOptions = {
  /** One render each; the first is also used for the product variants (a photo, a cut-out without mask file). */
  cases: RenderCase[];
  /** The scale every case renders at (default 0.25). */
  scale?: number;
  /** A render that still runs a moment after it starts, to abort (default: the first case at scale 0.5). */
  abortCase?: { templateId: string; scale: number };
  /** The wording your plugin promises for these failures, checked when given. */
  errors?: { abortedMidRender?: RegExp; abortedBeforeStart?: RegExp; unknownTemplate?: RegExp; missingImage?: RegExp };
  /** Time limit of one test. */
  timeoutMs?: number;
};

type Probe = { codec_name: string; width: number; height: number; pix_fmt: string; duration: number };

/** ffprobe's view of a file's first video stream. */
export async function ffprobe(file: string): Promise<Probe> {
  const p = Bun.spawn(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height,pix_fmt:format=duration", "-of", "json", file], { stdout: "pipe" });
  const json = JSON.parse(await new Response(p.stdout).text());
  return { ...json.streams[0], duration: Number(json.format.duration) };
}

/** Luma variance of one decoded frame: a blank or single-colour frame is near zero. */
export async function frameVariance(file: string, at: number): Promise<number> {
  const p = Bun.spawn(["ffmpeg", "-v", "error", "-ss", String(at), "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1"], { stdout: "pipe" });
  const px = await new Response(p.stdout).bytes();
  expect(px.length).toBeGreaterThan(100);
  let [sum, sq] = [0, 0];
  for (const v of px) {
    sum += v;
    sq += v * v;
  }
  const mean = sum / px.length;
  return sq / px.length - mean * mean;
}

/** Processes whose command line mentions a path (to prove nothing still works in a render's folder); Linux only. */
export function processesUsing(path: string): number[] {
  if (!existsSync("/proc/self/cmdline")) return [];
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(path)) found.push(Number(pid));
    } catch {}
  }
  return found;
}

const mediaFiles = (dir: string) => readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.(mp4|jpe?g)$/i.test(f));

/** Checks a finished render against its case: where its files are, ffprobe's view of them, and the progress reported. */
async function expectRendered(res: RenderResult, req: RenderRequest, progress: number[], c: RenderCase): Promise<void> {
  expect(res.videoPath.startsWith(req.workDir)).toBe(true);
  expect(res.thumbnailPath.startsWith(req.workDir)).toBe(true);
  expect([res.width, res.height]).toEqual([c.width, c.height]);
  expect(res.durationSeconds).toBeCloseTo(c.durationSeconds, 1);
  const video = await ffprobe(res.videoPath);
  expect(video.codec_name).toBe("h264");
  expect(video.pix_fmt).toBe("yuv420p");
  expect([video.width, video.height]).toEqual([c.width, c.height]);
  expect(Math.abs(video.duration - c.durationSeconds)).toBeLessThanOrEqual(0.2);
  expect(await frameVariance(res.videoPath, c.durationSeconds * 0.8)).toBeGreaterThan(50);
  const thumb = readFileSync(res.thumbnailPath);
  expect([thumb[0], thumb[1]]).toEqual([0xff, 0xd8]);
  expect((await ffprobe(res.thumbnailPath)).codec_name).toBe("mjpeg");
  // Progress is monotonic, within 0…100, and ends at 100.
  expect(progress.at(-1)).toBe(100);
  for (let k = 1; k < progress.length; k++) expect(progress[k]!).toBeGreaterThanOrEqual(progress[k - 1]!);
  expect(progress.every((p) => p >= 0 && p <= 100)).toBe(true);
  // Nothing half-written is left beside the result.
  expect(mediaFiles(req.workDir).map((f) => join(req.workDir, f)).sort()).toEqual([res.thumbnailPath, res.videoPath].sort());
}

/** Declares the renderer contract's tests for the plugin `make` returns (created and initialised once). */
export function rendererConformance(name: string, make: () => Promise<RendererPlugin>, options: RendererConformanceOptions): void {
  const timeout = options.timeoutMs ?? 120_000;
  const scale = options.scale ?? 0.25;
  const first = options.cases[0];
  if (!first) throw new Error("rendererConformance needs at least one case");
  const root = mkdtempSync(join(tmpdir(), "vitrin-renderer-kit-"));
  let products: { cutout: KitProduct; photo: KitProduct } | null = null;
  const kitProducts = () => (products ??= { cutout: writeCutoutProduct(join(root, "cutout")), photo: writePhotoProduct(join(root, "photo")) });
  let started: Promise<RendererPlugin> | null = null;
  const plugin = () =>
    (started ??= (async () => {
      const p = await make();
      await p.init?.();
      return p;
    })());
  let n = 0;
  const request = (c: Pick<RenderCase, "templateId" | "language" | "prompt">, over: Partial<RenderRequest> = {}) => {
    const progress: number[] = [];
    const workDir = join(root, `job-${++n}`);
    mkdirSync(workDir, { recursive: true });
    const req: RenderRequest = {
      workDir,
      templateId: c.templateId,
      product: kitProducts().cutout,
      prompt: c.prompt ?? { price: 24.5, old_price: 39 },
      language: c.language ?? "en",
      scale,
      signal: new AbortController().signal,
      onProgress: (p) => progress.push(p),
      ...over,
    };
    return { req, progress };
  };

  describe(`renderer conformance: ${name}`, () => {
    afterAll(async () => {
      if (started) await (await started).close?.();
      rmSync(root, { recursive: true, force: true });
    });

    test("declares the renderer slot and is ready", async () => {
      const p = await plugin();
      expect(p.slot).toBe("renderer");
      expect(p.name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect((await p.ready?.()) ?? { ok: true }).toMatchObject({ ok: true });
    }, timeout);

    for (const c of options.cases) {
      test(`${c.templateId} (${c.language ?? "en"}) renders to an H.264 MP4 of ${c.width}×${c.height}, ${c.durationSeconds} s, not blank, with a JPEG thumbnail and monotonic progress`, async () => {
        const { req, progress } = request(c);
        await expectRendered(await (await plugin()).render(req), req, progress, c);
      }, timeout);
    }

    test(`${first.templateId} renders a plain photo (no cut-out) and a cut-out without a mask file (its transparency is the mask)`, async () => {
      const p = await plugin();
      const { photo, cutout } = kitProducts();
      for (const product of [photo, { ...cutout, maskPath: null }]) {
        const { req, progress } = request(first, { product });
        await expectRendered(await p.render(req), req, progress, first);
      }
    }, timeout);

    test(`${first.templateId} in 16:9 renders landscape at that format's proportions (1920×1080 × scale)`, async () => {
      const { req, progress } = request(first, { aspect: "16:9" });
      const result = await (await plugin()).render(req);
      expect(progress.at(-1)).toBe(100);
      expect([result.width, result.height]).toEqual([Math.round((1920 * scale) / 2) * 2, Math.round((1080 * scale) / 2) * 2]);
      const probe = await ffprobe(result.videoPath);
      expect([probe.width, probe.height]).toEqual([result.width, result.height]);
    }, timeout);

    // check() is optional; when a renderer has it, it must answer layout problems as field + message, encode nothing,
    // and refuse an unknown template as render does.
    test("check(), when present, lists layout problems as { field, message } without encoding anything", async () => {
      const p = await plugin();
      if (!p.check) return;
      const { req } = request(first);
      const problems = await p.check({ workDir: req.workDir, templateId: req.templateId, product: req.product, prompt: req.prompt, language: req.language, scale });
      expect(Array.isArray(problems)).toBe(true);
      for (const problem of problems) expect(problem).toEqual({ field: expect.any(String), message: expect.any(String) });
      expect(mediaFiles(req.workDir)).toEqual([]);
      const unknown = await p.check({ ...req, templateId: "no-such-template" }).catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(Error);
      expect((unknown as Error).message).toContain('"no-such-template"');
    }, timeout);

    abortConformance(plugin, request, options, timeout);

    test("an unknown template is a clear error", async () => {
      const { req } = request({ templateId: "no-such-template" });
      const err = await (await plugin()).render(req).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain('"no-such-template"');
      if (options.errors?.unknownTemplate) expect((err as Error).message).toMatch(options.errors.unknownTemplate);
    }, timeout);

    test("a missing product image is a clear error naming it", async () => {
      const { req } = request(first);
      const gone = join(root, "gone.png");
      const err = await (await plugin()).render({ ...req, product: { ...req.product, imagePath: gone } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain(gone);
      if (options.errors?.missingImage) expect((err as Error).message).toMatch(options.errors.missingImage);
      expect(mediaFiles(req.workDir)).toEqual([]);
    }, timeout);
  });
}

type MakeRequest = (c: Pick<RenderCase, "templateId" | "language" | "prompt">, over?: Partial<RenderRequest>) => { req: RenderRequest; progress: number[] };

/** Aborting, mid-render and before it starts: the render rejects with an AbortError and leaves nothing behind. */
function abortConformance(plugin: () => Promise<RendererPlugin>, request: MakeRequest, options: RendererConformanceOptions, timeout: number): void {
  const target = options.abortCase ?? { templateId: options.cases[0]!.templateId, scale: 0.5 };
  const expectAbortError = (err: unknown, wording: RegExp | undefined) => {
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe("AbortError");
    if (wording) expect((err as Error).message).toMatch(wording);
  };

  test("aborting mid-render rejects with an AbortError, stops every process working on it and removes its files", async () => {
    const ctrl = new AbortController();
    const { req, progress } = request({ templateId: target.templateId }, { scale: target.scale, signal: ctrl.signal });
    // Abort once the renderer reports progress past its start (or, on a very fast machine, soon after it starts).
    req.onProgress = (p) => {
      progress.push(p);
      if (p >= 1) ctrl.abort();
      else setTimeout(() => ctrl.abort(), 1500);
    };
    const err = await (await plugin()).render(req).catch((e: unknown) => e);
    expectAbortError(err, options.errors?.abortedMidRender);
    expect(progress.length).toBeGreaterThan(0);
    expect(processesUsing(req.workDir)).toEqual([]);
    expect(mediaFiles(req.workDir)).toEqual([]);
  }, timeout);

  test("an already aborted signal rejects with an AbortError before any work", async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    const { req } = request({ templateId: target.templateId }, { signal: ctrl.signal });
    expectAbortError(await (await plugin()).render(req).catch((e: unknown) => e), options.errors?.abortedBeforeStart);
    expect(mediaFiles(req.workDir)).toEqual([]);
  }, timeout);
}
