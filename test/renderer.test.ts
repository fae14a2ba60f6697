// The ffmpeg renderer's own behaviour beyond the renderer contract (test/conformance/renderer.test.ts renders every
// template and checks abort and errors): no orphan ffmpeg, timeouts, ffmpeg's failures, readiness, settings and previews.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import rendererPlugin, { createFfmpegRenderer, optionsFrom } from "../plugins/renderer-ffmpeg";
import { readPluginSettings, type RenderRequest } from "../src/plugins";
import { loadConfig } from "../src/config";
import { memoryLogger } from "../src/kernel";
import { loadTemplates, type TemplateRegistry } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";
import { startService, type TestService } from "./helpers";
import { cutoutProduct, type FixtureProduct } from "./fixtures/render/product";
import { processesUsing } from "./conformance/renderer";

const SCALE = 0.25;
let registry: TemplateRegistry;
let dir: string;
let product: FixtureProduct;
let n = 0;

beforeAll(async () => {
  registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
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

describe("failures", () => {
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

  test("a timeout gives a clear error and leaves no files", async () => {
    const renderer = createFfmpegRenderer({ timeoutMs: 700, templates: registry });
    // Full size: far longer than the limit on any machine.
    const req = request("feature-split", { scale: 1 });
    const err = await renderer.render(req).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^render timed out after 700 ms/);
    expect(processesUsing(req.workDir)).toEqual([]);
    expect(readdirSync(req.workDir).filter((f) => /\.(mp4|jpg)$/.test(f))).toEqual([]);
  }, 60_000);

  test("ffmpeg failing reports its last error lines", async () => {
    const fake = join(dir, "fake-ffmpeg");
    await Bun.write(fake, "#!/bin/sh\necho 'first line' >&2\necho 'Error: something specific broke' >&2\nexit 1\n");
    chmodSync(fake, 0o755);
    const renderer = createFfmpegRenderer({ ffmpegPath: fake, templates: registry });
    const req = request("flash-sale");
    await expect(renderer.render(req)).rejects.toThrow("ffmpeg failed: first line | Error: something specific broke");
    expect(existsSync(join(req.workDir, "video.mp4"))).toBe(false);
  });
});

describe("readiness and settings", () => {
  test("ready() reports ffmpeg and ffprobe with their versions", async () => {
    const report = await createFfmpegRenderer({ templates: registry }).ready!();
    expect(report.ok).toBe(true);
    expect(report.detail).toMatch(/^ffmpeg \S+ with libx264, ffprobe \S+$/);
    const missing = await createFfmpegRenderer({ ffmpegPath: join(dir, "no-ffmpeg"), templates: registry }).ready!();
    expect(missing).toEqual({ ok: false, detail: expect.stringMatching(/ffmpeg was not found .*VITRIN_FFMPEG_PATH/) });
  });

  test("a good tool check is remembered across restarts until the executables change", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vitrin-ffcheck-"));
    const wrapper = join(dir, "ffmpeg");
    await Bun.write(wrapper, `#!/bin/sh\nexec ffmpeg "$@"\n`);
    chmodSync(wrapper, 0o755);
    const cache = join(dir, "cache", "ffmpeg-check.json");
    const first = await createFfmpegRenderer({ ffmpegPath: wrapper, checkCacheFile: cache, templates: registry }).ready!();
    expect(first.ok).toBe(true);
    const saved = JSON.parse(readFileSync(cache, "utf8"));
    saved.report.detail = "remembered";
    await Bun.write(cache, JSON.stringify(saved));
    expect((await createFfmpegRenderer({ ffmpegPath: wrapper, checkCacheFile: cache, templates: registry }).ready!()).detail).toBe("remembered");
    // A different executable (new size and time) is checked again.
    await Bun.write(wrapper, `#!/bin/sh\n# upgraded\nexec ffmpeg "$@"\n`);
    chmodSync(wrapper, 0o755);
    const again = await createFfmpegRenderer({ ffmpegPath: wrapper, checkCacheFile: cache, templates: registry }).ready!();
    expect(again).toMatchObject({ ok: true, detail: expect.stringContaining("with libx264") });
    rmSync(dir, { recursive: true, force: true });
  });

  test("the plugin definition takes its declared settings and the core's render time limit", async () => {
    expect(rendererPlugin.slot).toBe("renderer");
    expect(rendererPlugin.name).toBe("ffmpeg");
    const config = loadConfig({ VITRIN_DATA_DIR: join(tmpdir(), "vitrin-renderer-config"), VITRIN_RENDER_THREADS: "2", VITRIN_RENDER_TIMEOUT_MS: "90000" });
    const ctx = { config, settings: readPluginSettings(rendererPlugin.settings, config), env: {}, logger: memoryLogger(), templates: registry };
    const plugin = await rendererPlugin.create(ctx);
    expect(plugin.name).toBe("ffmpeg");
    await plugin.init?.();
    const options = optionsFrom(ctx);
    expect(options.timeoutMs).toBe(90_000);
    expect(options.threads).toBe(2);
    expect(options.templates).toBe(registry);
    expect(() => readPluginSettings(rendererPlugin.settings, loadConfig({ VITRIN_RENDER_THREADS: "many" }))).toThrow(/VITRIN_RENDER_THREADS/);
  });
});

describe("previews", () => {
  test("a preview is a PNG of the template's poster frame at half size, in the language asked", async () => {
    const renderer = createFfmpegRenderer({ templates: registry });
    for (const [id, lang] of [["spotlight", "en"], ["feature-split", "ar"], ["flash-sale", "ja"]] as const) {
      const png = await renderer.preview!({ templateId: id, language: lang });
      expect([...png.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const meta = await sharp(png).metadata();
      const info = registry.get(id)!.info;
      expect([meta.width, meta.height]).toEqual([info.width / 2, info.height / 2]);
      const stats = await sharp(png).stats();
      expect(stats.channels[0]!.stdev).toBeGreaterThan(5);
    }
    await expect(renderer.preview!({ templateId: "no-such-template" })).rejects.toThrow(/unknown template/);
  }, 60_000);

  test("a preview runs the ffmpeg of its settings", async () => {
    const fake = join(dir, "fake-preview-ffmpeg");
    await Bun.write(fake, "#!/bin/sh\necho 'Error: the configured ffmpeg ran' >&2\nexit 1\n");
    chmodSync(fake, 0o755);
    const renderer = createFfmpegRenderer({ ffmpegPath: fake, templates: registry });
    await expect(renderer.preview!({ templateId: "clean-card" })).rejects.toThrow(/preview of clean-card: Error: the configured ffmpeg ran/);
  });

  test("with a renderer that makes no previews, the preview route answers 404 and says so", async () => {
    let t: TestService | null = null;
    try {
      t = await startService({ VITRIN_PLUGIN_DIRS: join(import.meta.dir, "../examples/plugins"), VITRIN_RENDERER: "still" });
      const acct = await t.newAccount();
      const res = await t.json("GET", "/v1/templates/spotlight/preview", { token: acct.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found", code: "previews_not_supported", message: 'The renderer "still" makes no template previews.' });
      expect((await t.json("GET", "/v1/templates/no-such-template/preview", { token: acct.token })).body.message).toBe("No such template.");
    } finally {
      await t?.close();
    }
  });
});
