// The ffmpeg renderer: every template rendered small through the real code path and checked with ffprobe, plus
// progress, cancellation, timeouts, failures and readiness.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import rendererPlugin, { createFfmpegRenderer, optionsFrom } from "../plugins/renderer-ffmpeg";
import type { RenderRequest } from "../src/plugins";
import { loadConfig } from "../src/config";
import { memoryLogger } from "../src/config/log";
import { loadTemplates, renderSize, type TemplateRegistry } from "../src/templates";
import { cutoutProduct, type FixtureProduct } from "./fixtures/render/product";

const SCALE = 0.25;
let registry: TemplateRegistry;
let dir: string;
let product: FixtureProduct;
let n = 0;

beforeAll(async () => {
  registry = await loadTemplates();
  dir = mkdtempSync(join(tmpdir(), "vitrin-renderer-test-"));
  product = await cutoutProduct(join(dir, "product"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function request(templateId: string, over: Partial<RenderRequest> = {}): RenderRequest & { progress: number[] } {
  const progress: number[] = [];
  const workDir = join(dir, `job-${++n}`);
  mkdirSync(workDir, { recursive: true });
  return {
    workDir,
    templateId,
    product,
    prompt: { price: 24.5, old_price: 39 },
    language: "en",
    scale: SCALE,
    signal: new AbortController().signal,
    onProgress: (p) => progress.push(p),
    progress,
    ...over,
  };
}

async function ffprobe(file: string) {
  const p = Bun.spawn(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height,pix_fmt:format=duration", "-of", "json", file], { stdout: "pipe" });
  const json = JSON.parse(await new Response(p.stdout).text());
  return { ...json.streams[0], duration: Number(json.format.duration) } as { codec_name: string; width: number; height: number; pix_fmt: string; duration: number };
}

/** Luma variance of one decoded frame: a blank or single-colour frame is near zero. */
async function frameVariance(file: string, at: number): Promise<number> {
  const p = Bun.spawn(["ffmpeg", "-v", "error", "-ss", String(at), "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1"], { stdout: "pipe" });
  const px = await new Response(p.stdout).bytes();
  expect(px.length).toBeGreaterThan(1000);
  let sum = 0;
  let sq = 0;
  for (const v of px) {
    sum += v;
    sq += v * v;
  }
  const mean = sum / px.length;
  return sq / px.length - mean * mean;
}

/** Processes whose command line mentions a path (to prove ffmpeg is gone). */
function processesUsing(path: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(path)) found.push(Number(pid));
    } catch {}
  }
  return found;
}

describe("rendering every template", () => {
  const renderer = createFfmpegRenderer();
  // Each language at least once, Arabic (right-to-left) and Japanese (CJK) included.
  const languages = ["en", "ar", "ja", "tr", "de", "fr", "es"];

  test("each template renders at reduced scale to an H.264 MP4 of its duration and size, not blank", async () => {
    const list = registry.list();
    expect(list.length).toBeGreaterThanOrEqual(5);
    for (const [i, tpl] of list.entries()) {
      const language = languages[i % languages.length]!;
      const req = request(tpl.info.id, { language });
      const res = await renderer.render(req);
      const expected = renderSize(tpl.info, SCALE);
      expect(res.videoPath.startsWith(req.workDir)).toBe(true);
      expect(res.thumbnailPath.startsWith(req.workDir)).toBe(true);
      expect([res.width, res.height]).toEqual([expected.width, expected.height]);
      expect(res.durationSeconds).toBeCloseTo(tpl.info.duration, 1);
      const probe = await ffprobe(res.videoPath);
      expect(probe.codec_name).toBe("h264");
      expect(probe.pix_fmt).toBe("yuv420p");
      expect([probe.width, probe.height]).toEqual([expected.width, expected.height]);
      expect(Math.abs(probe.duration - tpl.info.duration)).toBeLessThanOrEqual(0.2);
      expect(await frameVariance(res.videoPath, tpl.info.duration * 0.8)).toBeGreaterThan(50);
      const thumb = readFileSync(res.thumbnailPath);
      expect([thumb[0], thumb[1]]).toEqual([0xff, 0xd8]);
      // Progress is monotonic and ends at 100.
      expect(req.progress.at(-1)).toBe(100);
      for (let k = 1; k < req.progress.length; k++) expect(req.progress[k]!).toBeGreaterThanOrEqual(req.progress[k - 1]!);
      expect(req.progress.every((p) => p >= 0 && p <= 100)).toBe(true);
      // Nothing half-written is left behind.
      expect(readdirSync(req.workDir).filter((f) => f.includes("partial"))).toEqual([]);
    }
  }, 180_000);

  test("a cut-out without a mask file still renders (its transparency is the mask)", async () => {
    const res = await renderer.render(request("minimal-luxe", { product: { ...product, maskPath: null }, language: "fr" }));
    expect((await ffprobe(res.videoPath)).codec_name).toBe("h264");
  }, 60_000);
});

describe("failures", () => {
  test("aborting kills ffmpeg and removes partial files", async () => {
    const renderer = createFfmpegRenderer();
    const ctrl = new AbortController();
    const req = request("showcase", { scale: 0.5, signal: ctrl.signal });
    // Abort once ffmpeg reports frames (or, on a very fast machine, soon after the render starts).
    req.onProgress = (p) => {
      req.progress.push(p);
      if (p >= 1) ctrl.abort();
      else setTimeout(() => ctrl.abort(), 1500);
    };
    const err = await renderer.render(req).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/cancelled; ffmpeg was killed/);
    expect((err as Error).name).toBe("AbortError");
    expect(req.progress.length).toBeGreaterThan(0);
    expect(processesUsing(req.workDir)).toEqual([]);
    const left = readdirSync(req.workDir).filter((f) => /\.(mp4|jpg)$/.test(f));
    expect(left).toEqual([]);
  }, 60_000);

  test("ffmpeg dies with the instance that started it, even one that is SIGKILLed", async () => {
    const workDir = mkdtempSync(join(tmpdir(), "vitrin-orphan-"));
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "support", "ffmpeg-child.ts"), workDir], { stdout: "pipe", stderr: "inherit" });
    const reader = child.stdout.getReader();
    let out = "";
    while (!out.includes("started")) {
      const { done, value } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(out).toContain("started");
    // The output file is named on ffmpeg's command line only, not on the child's.
    const output = join(workDir, "long.mp4");
    expect(processesUsing(output).length).toBe(1);
    child.kill("SIGKILL");
    await child.exited;
    // The kernel sends ffmpeg its SIGKILL as the parent goes; give it a moment to be reaped.
    for (let i = 0; i < 100 && processesUsing(output).length > 0; i++) await Bun.sleep(50);
    expect(processesUsing(output)).toEqual([]);
    rmSync(workDir, { recursive: true, force: true });
  }, 30_000);

  test("an already aborted signal never starts ffmpeg", async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    await expect(createFfmpegRenderer().render(request("spotlight", { signal: ctrl.signal }))).rejects.toThrow(/cancelled/);
  });

  test("a timeout gives a clear error and leaves no files", async () => {
    const renderer = createFfmpegRenderer({ timeoutMs: 700 });
    // Full size: far longer than the limit on any machine.
    const req = request("feature-split", { scale: 1 });
    const err = await renderer.render(req).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^render timed out after 700 ms/);
    expect(processesUsing(req.workDir)).toEqual([]);
    expect(readdirSync(req.workDir).filter((f) => /\.(mp4|jpg)$/.test(f))).toEqual([]);
  }, 60_000);

  test("a missing product image is a clear error", async () => {
    const req = request("spotlight", { product: { ...product, imagePath: join(dir, "gone.png") } });
    await expect(createFfmpegRenderer().render(req)).rejects.toThrow(/^the product image does not exist: .*gone\.png$/);
  });

  test("an unknown template is a clear error", async () => {
    await expect(createFfmpegRenderer().render(request("nope"))).rejects.toThrow('unknown template "nope"');
  });

  test("ffmpeg failing reports its last error lines", async () => {
    const fake = join(dir, "fake-ffmpeg");
    await Bun.write(fake, "#!/bin/sh\necho 'first line' >&2\necho 'Error: something specific broke' >&2\nexit 1\n");
    chmodSync(fake, 0o755);
    const renderer = createFfmpegRenderer({ ffmpegPath: fake });
    const req = request("flash-sale");
    await expect(renderer.render(req)).rejects.toThrow("ffmpeg failed: first line | Error: something specific broke");
    expect(existsSync(join(req.workDir, "video.mp4"))).toBe(false);
  });
});

describe("readiness and settings", () => {
  test("ready() reports ffmpeg and ffprobe with their versions", async () => {
    const report = await createFfmpegRenderer().ready!();
    expect(report.ok).toBe(true);
    expect(report.detail).toMatch(/^ffmpeg \S+ with libx264, ffprobe \S+$/);
    const missing = await createFfmpegRenderer({ ffmpegPath: join(dir, "no-ffmpeg") }).ready!();
    expect(missing).toEqual({ ok: false, detail: expect.stringMatching(/ffmpeg was not found .*VITRIN_FFMPEG_PATH/) });
  });

  test("a good tool check is remembered across restarts until the executables change", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vitrin-ffcheck-"));
    const wrapper = join(dir, "ffmpeg");
    await Bun.write(wrapper, `#!/bin/sh\nexec ffmpeg "$@"\n`);
    chmodSync(wrapper, 0o755);
    const cache = join(dir, "cache", "ffmpeg-check.json");
    const first = await createFfmpegRenderer({ ffmpegPath: wrapper, checkCacheFile: cache }).ready!();
    expect(first.ok).toBe(true);
    const saved = JSON.parse(readFileSync(cache, "utf8"));
    saved.report.detail = "remembered";
    await Bun.write(cache, JSON.stringify(saved));
    expect((await createFfmpegRenderer({ ffmpegPath: wrapper, checkCacheFile: cache }).ready!()).detail).toBe("remembered");
    // A different executable (new size and time) is checked again.
    await Bun.write(wrapper, `#!/bin/sh\n# upgraded\nexec ffmpeg "$@"\n`);
    chmodSync(wrapper, 0o755);
    const again = await createFfmpegRenderer({ ffmpegPath: wrapper, checkCacheFile: cache }).ready!();
    expect(again).toMatchObject({ ok: true, detail: expect.stringContaining("with libx264") });
    rmSync(dir, { recursive: true, force: true });
  });

  test("the plugin definition takes its settings from the service config", async () => {
    expect(rendererPlugin.slot).toBe("renderer");
    expect(rendererPlugin.name).toBe("ffmpeg");
    const config = loadConfig({ VITRIN_DATA_DIR: join(tmpdir(), "vitrin-renderer-config"), VITRIN_RENDER_THREADS: "2", VITRIN_RENDER_TIMEOUT_MS: "90000" });
    const ctx = { config, env: {}, logger: memoryLogger(), templates: registry };
    const plugin = await rendererPlugin.create(ctx);
    expect(plugin.name).toBe("ffmpeg");
    await plugin.init?.();
    const options = optionsFrom(ctx);
    expect(options.timeoutMs).toBe(90_000);
    expect(options.threads).toBe(2);
    expect(options.templates).toBe(registry);
    expect(() => loadConfig({ VITRIN_RENDER_THREADS: "many" })).toThrow(/VITRIN_RENDER_THREADS/);
  });
});
