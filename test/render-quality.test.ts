// What the ffmpeg renderer's pictures look like, measured: shadows in the product's shape, the frame count, colour.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFfmpegRenderer } from "../plugins/renderer-ffmpeg";
import { AssetWriter } from "../plugins/renderer-ffmpeg/assets";
import { loadTemplates, type TemplateRegistry } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";
import { cutoutProduct, type FixtureProduct } from "./fixtures/render/product";

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
  }
});
