// What the ffmpeg renderer's pictures look like, measured: shadows in the product's shape, the frame count, colour.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFfmpegRenderer } from "../plugins/renderer-ffmpeg";
import { AssetWriter } from "../plugins/renderer-ffmpeg/assets";
import { prepareRender } from "../plugins/renderer-ffmpeg/prepare";
import { asStill } from "../plugins/renderer-ffmpeg/scene/compile";
import { loadTemplates, type TemplateRegistry } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";
import { cutoutProduct, type FixtureProduct } from "./fixtures/render/product";
import { deltaE2000 } from "./support/delta-e";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vitrin-render-quality-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A red disc cut out on transparency, with its greyscale mask beside it. */
async function discProduct(folder: string) {
  mkdirSync(folder, { recursive: true });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><circle cx="200" cy="200" r="150" fill="#c03030"/></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const imagePath = join(folder, "disc.png");
  const maskPath = join(folder, "disc-mask.png");
  await sharp(png).toFile(imagePath);
  await sharp(png).extractChannel(3).png().toFile(maskPath);
  return { imagePath, maskPath, cutout: true };
}

describe("shadows", () => {
  test("a disc's drop shadow is a disc: the corners of its bounding box stay transparent", async () => {
    const source = await discProduct(join(dir, "disc"));
    const writer = new AssetWriter(join(dir, "disc-render"), 1, "en", false);
    const asset = await writer.product(source, { maxWidth: 300, maxHeight: 300 });
    const { data, info } = await sharp(asset.path).raw().toBuffer({ resolveWithObject: true });
    const alpha = (x: number, y: number) => data[(Math.round(y) * info.width + Math.round(x)) * 4 + 3]!;
    const pad = (info.width - 300) / 2;
    // The disc's bounding box runs from pad to pad + 300; the shadow falls a little below it.
    const corners = [alpha(pad + 12, pad + 12), alpha(pad + 288, pad + 12), alpha(pad + 12, pad + 295), alpha(pad + 288, pad + 295)];
    expect(Math.max(...corners)).toBeLessThan(8);
    // Right under the disc's lowest point there is shadow.
    expect(alpha(info.width / 2, pad + 305)).toBeGreaterThan(30);
  });
});

const SCALE = 0.25;
let registry: TemplateRegistry;
let product: FixtureProduct;
let jobs = 0;
const rendered = new Map<string, Promise<{ videoPath: string; fps: number; duration: number }>>();

/** Each built-in template rendered once at reduced scale (the production code path), shared by the checks below. */
function renderOf(templateId: string) {
  let run = rendered.get(templateId);
  if (!run) {
    run = (async () => {
      registry ??= await loadTemplates({ builtin: BUILTIN_TEMPLATES });
      product ??= await cutoutProduct(join(dir, "product"));
      const workDir = join(dir, `job-${++jobs}`);
      mkdirSync(workDir, { recursive: true });
      const renderer = createFfmpegRenderer({ templates: registry });
      const result = await renderer.render({
        workDir, templateId, product, prompt: { price: 24.5, old_price: 39 }, language: "en", scale: SCALE,
        signal: new AbortController().signal, onProgress: () => {},
      });
      const def = registry.get(templateId)!.definition;
      return { videoPath: result.videoPath, fps: def.meta.fps ?? 30, duration: def.meta.duration };
    })();
    rendered.set(templateId, run);
  }
  return run;
}

async function ffprobeJson(args: string[]): Promise<any> {
  const proc = Bun.spawn(["ffprobe", "-v", "error", "-of", "json", ...args], { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(0);
  return JSON.parse(out);
}

describe("frames", () => {
  for (const templateId of BUILTIN_TEMPLATES.map((t) => t.meta.id)) {
    test(`${templateId}: exactly duration × fps frames`, async () => {
      const { videoPath, fps, duration } = await renderOf(templateId);
      const p = await ffprobeJson(["-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", videoPath]);
      expect(Number(p.streams[0].nb_read_frames)).toBe(Math.round(duration * fps));
    }, 120_000);

    // Run without -frames:v: a thumbnail graph that went on would be composed (and converted) frame after frame
    // before ffmpeg stopped it (feature-split's 60 frames, ~1 s of CPU) or never end (a layer drawn on every frame).
    test(`${templateId}: the thumbnail's graph yields its one frame and ends`, async () => {
      registry ??= await loadTemplates({ builtin: BUILTIN_TEMPLATES });
      product ??= await cutoutProduct(join(dir, "product"));
      const workDir = join(dir, `poster-${templateId}`);
      const job = await prepareRender({ definition: registry.get(templateId)!.definition, product, prompt: { price: 24.5, old_price: 39 }, language: "en", scale: SCALE, workDir });
      const run = Bun.spawn(["ffmpeg", "-v", "error", ...job.poster.inputs, "-filter_complex", job.poster.filter, "-map", job.poster.output, "-f", "framemd5", "-"], {
        stdout: "pipe", stderr: "pipe", timeout: 60_000,
      });
      const out = await new Response(run.stdout).text();
      expect(await run.exited).toBe(0);
      expect(out.split("\n").filter((l) => /^\d/.test(l))).toHaveLength(1);
    }, 120_000);
  }
});

/**
 * The frame `index` of a video as 8-bit sRGB, decoded as a player would: by the file's colour tags, and as BT.709
 * TV range where it has none (what browsers and phones assume for HD video).
 */
async function frameRgb(videoPath: string, index: number): Promise<{ data: Buffer; width: number; height: number }> {
  const tags = (await ffprobeJson(["-select_streams", "v:0", "-show_entries", "stream=color_space,color_range", videoPath])).streams[0];
  const matrix = tags.color_space === "smpte170m" || tags.color_space === "bt470bg" ? "bt601" : "bt709";
  const range = tags.color_range === "pc" ? "pc" : "tv";
  const out = join(dir, `frame-${++jobs}.png`);
  const convert = `select=eq(n\\,${index}),scale=in_color_matrix=${matrix}:in_range=${range}:out_range=pc,format=rgb24`;
  const proc = Bun.spawn(["ffmpeg", "-v", "error", "-y", "-i", videoPath, "-vf", convert, "-frames:v", "1", out], { stderr: "pipe" });
  expect(await proc.exited).toBe(0);
  const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe("colour", () => {
  test("the video is tagged BT.709, TV range", async () => {
    const { videoPath } = await renderOf("clean-card");
    const p = await ffprobeJson(["-select_streams", "v:0", "-show_entries", "stream=color_space,color_primaries,color_transfer,color_range", videoPath]);
    expect(p.streams[0]).toEqual({ color_space: "bt709", color_primaries: "bt709", color_transfer: "bt709", color_range: "tv" });
  }, 120_000);

  for (const hex of ["#c03030", "#2a9d8f", "#e9c46a"]) {
    test(`a flat ${hex} product photo keeps its colour in the video (ΔE2000 < 3)`, async () => {
      const folder = join(dir, `flat-${hex.slice(1)}`);
      mkdirSync(folder, { recursive: true });
      const imagePath = join(folder, "photo.png");
      await sharp({ create: { width: 600, height: 480, channels: 3, background: hex } }).png().toFile(imagePath);
      const product = { id: "prod_flat", name: "Flat", description: "", imagePath, maskPath: null, cutout: false };
      registry ??= await loadTemplates({ builtin: BUILTIN_TEMPLATES });
      const def = registry.get("clean-card")!.definition;
      const workDir = join(dir, `flat-job-${hex.slice(1)}`);
      mkdirSync(workDir, { recursive: true });
      const result = await createFfmpegRenderer({ templates: registry }).render({
        workDir, templateId: "clean-card", product, prompt: {}, language: "en", scale: SCALE, signal: new AbortController().signal, onProgress: () => {},
      });
      // Where the product sits at the poster frame, from the same template and product.
      const job = await prepareRender({ definition: def, product, prompt: {}, language: "en", scale: SCALE, workDir: join(workDir, "layout") });
      const at = job.placements.find((l) => l.name === "product")!;
      const frame = await frameRgb(result.videoPath, job.posterFrame);
      const cx = Math.round((at.x + at.width / 2) * SCALE);
      const cy = Math.round((at.y + at.height / 2) * SCALE);
      const sum = [0, 0, 0];
      for (let y = cy - 3; y <= cy + 3; y++)
        for (let x = cx - 3; x <= cx + 3; x++) for (let c = 0; c < 3; c++) sum[c]! += frame.data[(y * frame.width + x) * 3 + c]!;
      const seen = sum.map((v) => v / 49) as [number, number, number];
      const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
      expect(deltaE2000(want, seen)).toBeLessThan(3);
      // The JPEG thumbnail too, read as JPEG is (BT.601, full range).
      const thumb = await sharp(result.thumbnailPath).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const i = (cy * thumb.info.width + cx) * 3;
      expect(deltaE2000(want, [thumb.data[i]!, thumb.data[i + 1]!, thumb.data[i + 2]!])).toBeLessThan(3);
    }, 120_000);
  }
});

describe("motion", () => {
  for (const templateId of BUILTIN_TEMPLATES.map((t) => t.meta.id)) {
    test(`${templateId}: ffmpeg's freezedetect (default noise, d=1) finds no frozen second`, async () => {
      const { videoPath } = await renderOf(templateId);
      const proc = Bun.spawn(["ffmpeg", "-v", "info", "-nostats", "-i", videoPath, "-vf", "freezedetect=d=1", "-f", "null", "-"], { stderr: "pipe" });
      const log = await new Response(proc.stderr).text();
      expect(await proc.exited).toBe(0);
      expect(log.split("\n").filter((l) => l.includes("freezedetect.freeze_start"))).toEqual([]);
    }, 120_000);

    test(`${templateId}: the product is seen in the first frame`, async () => {
      const { videoPath } = await renderOf(templateId);
      const first = await frameRgb(videoPath, 0);
      // The same first frame with the product's colours inverted: where the product shows, the pictures differ.
      const other = join(dir, `inverted-${templateId}`);
      mkdirSync(other, { recursive: true });
      const imagePath = join(other, "cutout.png");
      await sharp(product.imagePath).negate({ alpha: false }).png().toFile(imagePath);
      const job = await prepareRender({ definition: registry.get(templateId)!.definition, product: { ...product, imagePath }, prompt: { price: 24.5, old_price: 39 }, language: "en", scale: SCALE, workDir: other });
      const still = asStill(job, "png");
      const out = join(other, "first.png");
      const run = Bun.spawn(["ffmpeg", "-v", "error", "-y", ...still.inputs, "-filter_complex", still.filter, "-map", still.output, "-frames:v", "1", out], { stderr: "pipe" });
      expect(await run.exited).toBe(0);
      const { data } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
      let differing = 0;
      for (let i = 0; i < data.length; i += 3) {
        if (Math.abs(data[i]! - first.data[i]!) + Math.abs(data[i + 1]! - first.data[i + 1]!) + Math.abs(data[i + 2]! - first.data[i + 2]!) > 90) differing++;
      }
      expect(differing / (data.length / 3)).toBeGreaterThan(0.02);
    }, 120_000);
  }
});
