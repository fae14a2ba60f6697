// The ISNet background-removal plugin with the real model on real photos: assembly and hash check, cut-out geometry,
// EXIF, retries, concurrency, aborts, idle unload, and clear errors for damaged or missing models.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
// The plugin's runtime goes before transformers.js: it switches ONNX Runtime's telemetry off before ONNX Runtime loads.
import { fastPixelValues } from "../plugins/background-removal-isnet/runtime";
import { AutoProcessor, RawImage } from "@huggingface/transformers";
import { createIsnetRemoval, installModel, MODEL_BYTES, MODEL_SHA256, type IsnetRemoval } from "../plugins/background-removal-isnet";
import { PREPROCESSOR_CONFIG } from "../plugins/background-removal-isnet/model";
import type { Cutout } from "../src/plugins";
import { tempDir } from "./helpers";

const photo = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "fixtures", "photos", name)));
const SLOW = 120_000;

let root: string;
let modelDir: string;
let plugin: IsnetRemoval;
let coffee: Cutout;

type Alpha = { at(x: number, y: number): number; width: number; height: number };

async function alphaOf(png: Uint8Array): Promise<Alpha> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const clamp = (v: number, max: number) => Math.min(max - 1, Math.max(0, Math.round(v)));
  return {
    width: info.width,
    height: info.height,
    at: (x, y) => data[(clamp(y, info.height) * info.width + clamp(x, info.width)) * 4 + 3],
  };
}

/** Mean alpha over a 13×13 patch (sampled every 3 px): one pixel can sit on a highlight the model left semi-transparent. */
async function alphaAround(png: Uint8Array, x: number, y: number): Promise<number> {
  const alpha = await alphaOf(png);
  let sum = 0;
  let n = 0;
  for (let dy = -6; dy <= 6; dy += 3) for (let dx = -6; dx <= 6; dx += 3) (sum += alpha.at(x + dx, y + dy)), n++;
  return sum / n;
}

async function corners(png: Uint8Array): Promise<number[]> {
  const a = await alphaOf(png);
  return [a.at(0, 0), a.at(a.width - 1, 0), a.at(0, a.height - 1), a.at(a.width - 1, a.height - 1)];
}

beforeAll(async () => {
  root = tempDir("vitrin-isnet-");
  modelDir = join(root, "models", "isnet");
  await installModel(modelDir);
  plugin = createIsnetRemoval({ modelDir, threads: 2, idleMs: 60_000 });
  await plugin.init?.();
});

afterAll(async () => {
  await plugin?.close?.();
  rmSync(root, { recursive: true, force: true });
});

describe("isnet model files", () => {
  test("installModel assembled the bundled model in transformers.js layout, converted to fp32 and int8 and checked by SHA-256", async () => {
    const file = join(modelDir, "onnx", "model.onnx");
    expect(statSync(file).size).toBe(MODEL_BYTES);
    expect(new Bun.CryptoHasher("sha256").update(readFileSync(file)).digest("hex")).toBe(MODEL_SHA256);
    expect(JSON.parse(readFileSync(join(modelDir, "config.json"), "utf8")).model_type).toBe("isnet");
    expect(JSON.parse(readFileSync(join(modelDir, "preprocessor_config.json"), "utf8")).size).toEqual({ width: 1024, height: 1024 });
    expect(readdirTmp(modelDir)).toEqual([]);
    const before = statSync(file).mtimeMs;
    const again = await installModel(modelDir);
    expect(again.action).toBe("verified");
    expect(statSync(file).mtimeMs).toBe(before);
  });

  test("a folder holding someone else's model is left as it is", async () => {
    const dir = join(root, "custom");
    mkdirSync(join(dir, "onnx"), { recursive: true });
    writeFileSync(join(dir, "config.json"), "{}");
    writeFileSync(join(dir, "preprocessor_config.json"), "{}");
    writeFileSync(join(dir, "onnx", "model.onnx"), "theirs");
    expect((await installModel(dir)).action).toBe("custom");
    expect(readFileSync(join(dir, "onnx", "model.onnx"), "utf8")).toBe("theirs");
  });

  test("the fused preprocessing gives the same tensor as transformers.js' processor", async () => {
    const dir = join(root, "imagenet-norm");
    mkdirSync(dir, { recursive: true });
    const configs = [
      PREPROCESSOR_CONFIG,
      { ...PREPROCESSOR_CONFIG, size: { width: 64, height: 48 }, image_mean: [0.485, 0.456, 0.406], image_std: [0.229, 0.224, 0.225] },
      { ...PREPROCESSOR_CONFIG, size: { width: 64, height: 48 }, do_flip_channel_order: true, image_mean: [0.1, 0.2, 0.3] },
    ];
    for (const config of configs) {
      writeFileSync(join(dir, "preprocessor_config.json"), JSON.stringify(config));
      const processor = await AutoProcessor.from_pretrained(dir);
      const { width, height } = config.size;
      const rgb = new Uint8Array(width * height * 3).map((_, i) => (i * 37 + (i >> 7)) % 256);
      const fast = fastPixelValues(processor, rgb, width, height)!;
      const { pixel_values } = await processor(new RawImage(new Uint8ClampedArray(rgb), width, height, 3));
      expect(pixel_values.dims).toEqual([1, 3, height, width]);
      const reference = pixel_values.data as Float32Array;
      let worst = 0;
      for (let i = 0; i < reference.length; i++) worst = Math.max(worst, Math.abs(reference[i] - fast[i]));
      expect(worst).toBeLessThan(1e-5);
    }
  });
});

describe("isnet cut-outs of real photos", () => {
  test("ready() says the model is installed before it is loaded", async () => {
    const report = await plugin.ready!();
    expect(report.ok).toBe(true);
    expect(plugin.loaded()).toBe(false);
  });

  test("coffee cup: transparent background, opaque product, capped size, same-size mask, sane box", async () => {
    coffee = await plugin.remove({ image: photo("coffee.jpg"), attempt: 1 });
    const meta = await sharp(coffee.png).metadata();
    expect(meta.format).toBe("png");
    expect(meta.hasAlpha).toBe(true);
    expect([meta.width, meta.height]).toEqual([coffee.width, coffee.height]);
    expect(Math.max(coffee.width, coffee.height)).toBeLessThanOrEqual(1024);
    // The cup and saucer fill most of the 600×400 photo, but not its corners.
    expect(coffee.width).toBeLessThan(560);
    expect(coffee.width).toBeGreaterThan(300);

    const mask = await sharp(coffee.mask).metadata();
    expect([mask.width, mask.height]).toEqual([coffee.width, coffee.height]);
    expect(mask.channels).toBe(1);

    for (const a of await corners(coffee.png)) expect(a).toBeLessThan(8);
    const { box } = coffee;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(coffee.width);
    expect(box.y + box.height).toBeLessThanOrEqual(coffee.height);
    // Trimmed to the product: the box takes most of the picture, with a margin on every side.
    expect(box.width).toBeGreaterThan(coffee.width * 0.85);
    expect(box.height).toBeGreaterThan(coffee.height * 0.85);
    expect(box.x).toBeGreaterThan(0);
    expect(box.y).toBeGreaterThan(0);
    expect(await alphaAround(coffee.png, box.x + box.width / 2, box.y + box.height / 2)).toBeGreaterThan(245);
    expect(coffee.variant).toContain("threshold");
  }, SLOW);

  test("the mask is the PNG's alpha channel", async () => {
    const alpha = await sharp(coffee.png).extractChannel(3).raw().toBuffer();
    // sharp widens greyscale to RGB on raw output, so take one band of the (single-band) mask.
    const mask = await sharp(coffee.mask).extractChannel(0).raw().toBuffer();
    expect(Buffer.compare(alpha, mask)).toBe(0);
  });

  test("after a cut-out the plugin hands memory back: a full collection and glibc's malloc_trim, both reachable", async () => {
    const { giveBackMemory } = await import("../plugins/background-removal-isnet/native-env");
    // On Linux with glibc (this machine, the Docker image) malloc_trim is found; elsewhere only the collection runs.
    const glibc = ["/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6"].some((f) => existsSync(f));
    expect(giveBackMemory()).toBe(process.platform === "linux" && glibc);
  });

  test("a large photo comes out at 1024 px on its longest side", async () => {
    const big = await sharp(photo("coffee.jpg")).resize(2400, 1600).jpeg({ quality: 90 }).toBuffer();
    const cut = await plugin.remove({ image: new Uint8Array(big), attempt: 1 });
    expect(Math.max(cut.width, cut.height)).toBe(1024);
    // Same framing as the small photo, within rounding.
    expect(Math.abs(cut.width / cut.height - coffee.width / coffee.height)).toBeLessThan(0.03);
    for (const a of await corners(cut.png)) expect(a).toBeLessThan(8);
  }, SLOW);

  test("honours EXIF orientation (a photo stored sideways comes out upright)", async () => {
    // Stored rotated a quarter turn, with orientation 6 saying "turn it back".
    const stored = await sharp(photo("coffee.jpg")).rotate(-90).jpeg({ quality: 90 }).toBuffer();
    const sideways = await sharp(stored).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
    const cut = await plugin.remove({ image: new Uint8Array(sideways), attempt: 1 });
    expect(Math.abs(cut.width - coffee.width)).toBeLessThanOrEqual(6);
    expect(Math.abs(cut.height - coffee.height)).toBeLessThanOrEqual(6);
  }, SLOW);

  test("each retry changes what it does, and says so", async () => {
    const cuts = [coffee];
    for (const attempt of [2, 3, 4]) cuts.push(await plugin.remove({ image: photo("coffee.jpg"), attempt }));
    expect(new Set(cuts.map((c) => c.variant)).size).toBe(4);
    const looks = cuts.map((c) => `${c.width}x${c.height}:${new Bun.CryptoHasher("sha256").update(c.mask).digest("hex")}`);
    expect(new Set(looks).size).toBe(4);
    for (const c of cuts) for (const a of await corners(c.png)) expect(a).toBeLessThan(8);
    // Attempt 3 widens the crop, attempt 2 tightens it.
    expect(cuts[2].width).toBeGreaterThan(cuts[0].width);
    expect(cuts[1].width).toBeLessThan(cuts[0].width);
  }, SLOW);

  test("two photos at once both finish", async () => {
    const [a, b] = await Promise.all([
      plugin.remove({ image: photo("astronaut.jpg"), attempt: 1 }),
      plugin.remove({ image: photo("chelsea.jpg"), attempt: 1 }),
    ]);
    expect(Math.max(a.width, a.height)).toBeLessThanOrEqual(1024);
    expect(Math.max(b.width, b.height)).toBeLessThanOrEqual(1024);
    // The astronaut's sky-blue backdrop is gone above her; the cat fills its photo, so its cut-out is nearly all of it.
    const [tl, tr] = await corners(a.png);
    expect(tl).toBeLessThan(8);
    expect(tr).toBeLessThan(8);
    expect(await alphaAround(a.png, a.box.x + a.box.width / 2, a.box.y + a.box.height / 2)).toBeGreaterThan(245);
    expect(b.width).toBeGreaterThan(380);
  }, SLOW);

  test("a photo with nothing in it is an error, not an empty image", async () => {
    const blank = await sharp({ create: { width: 800, height: 600, channels: 3, background: "#e8e4dc" } }).jpeg().toBuffer();
    await expect(plugin.remove({ image: new Uint8Array(blank), attempt: 1 })).rejects.toThrow(/^No product found in the image: /);
  }, SLOW);

  test("an undecodable image is a clear error", async () => {
    await expect(plugin.remove({ image: new TextEncoder().encode("not an image"), attempt: 1 })).rejects.toThrow(
      /^The image could not be decoded/,
    );
  });

  test("an abort while waiting for the model gives up at once; the running job still finishes", async () => {
    const first = plugin.remove({ image: photo("chelsea.jpg"), attempt: 1 });
    const ctrl = new AbortController();
    const second = plugin.remove({ image: photo("coffee.jpg"), attempt: 1, signal: ctrl.signal });
    let secondSettled = 0;
    second.catch(() => (secondSettled = performance.now()));
    setTimeout(() => ctrl.abort(new Error("job cancelled")), 20);
    await expect(second).rejects.toThrow("job cancelled");
    const cut = await first;
    const firstDone = performance.now();
    expect(cut.width).toBeGreaterThan(0);
    expect(secondSettled).toBeGreaterThan(0);
    expect(secondSettled).toBeLessThan(firstDone);
  }, SLOW);
});

describe("isnet with a damaged or unusable model", () => {
  test("a corrupted model file fails remove() with a clear error and ready() reports it; installModel repairs it", async () => {
    const dir = join(root, "damaged", "isnet");
    const other = createIsnetRemoval({ modelDir: dir, threads: 2, idleMs: 100 });
    await other.init!(); // assembles on first use, through installModel
    const file = join(dir, "onnx", "model.onnx");
    expect(statSync(file).size).toBe(MODEL_BYTES);
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.alloc(4096, 7), 0, 4096, 40_000_000);
    closeSync(fd);

    const report = await other.ready!();
    expect(report.ok).toBe(false);
    expect(report.detail).toContain("damaged");
    await expect(other.remove({ image: photo("coffee.jpg"), attempt: 1 })).rejects.toThrow(
      /^The background-removal model in .* is damaged \(.*SHA-256.*\)\. Run `vitrin models install`/,
    );

    expect((await installModel(dir)).action).toBe("assembled");
    expect((await other.ready!()).ok).toBe(true);
    await other.close!();
  }, SLOW);

  test("a folder in RMBG-1.4's layout, without vitrin's manifest, is used as it is; the model unloads when idle", async () => {
    // RMBG-1.4's own config.json and preprocessor_config.json, with the ISNet weights standing in for RMBG's.
    const dir = join(root, "rmbg-layout");
    mkdirSync(join(dir, "onnx"), { recursive: true });
    copyFileSync(join(modelDir, "onnx", "model.onnx"), join(dir, "onnx", "model.onnx"));
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ _name_or_path: "briaai/RMBG-1.4", architectures: ["BriaRMBG"], model_type: "SegformerForSemanticSegmentation", in_ch: 3, out_ch: 1 }),
    );
    writeFileSync(join(dir, "preprocessor_config.json"), JSON.stringify(PREPROCESSOR_CONFIG));
    expect((await installModel(dir)).action).toBe("custom");
    expect(existsSync(join(dir, "vitrin-model.json"))).toBe(false);

    const custom = createIsnetRemoval({ modelDir: dir, threads: 2, idleMs: 100 });
    expect((await custom.ready!()).detail).toContain("custom model");
    const cut = await custom.remove({ image: photo("coffee.jpg"), attempt: 1 });
    expect([cut.width, cut.height]).toEqual([coffee.width, coffee.height]);
    expect(custom.loaded()).toBe(true);
    await Bun.sleep(400);
    expect(custom.loaded()).toBe(false);
    await custom.close!();
  }, SLOW);

  test("a model file ONNX Runtime cannot read fails remove() with a clear error, without crashing", async () => {
    const dir = join(root, "garbage");
    mkdirSync(join(dir, "onnx"), { recursive: true });
    writeFileSync(join(dir, "config.json"), JSON.stringify({ model_type: "isnet" }));
    writeFileSync(join(dir, "preprocessor_config.json"), JSON.stringify(PREPROCESSOR_CONFIG));
    writeFileSync(join(dir, "onnx", "model.onnx"), Buffer.alloc(10_000, 42));
    const bad = createIsnetRemoval({ modelDir: dir, threads: 1, idleMs: 1000 });
    expect((await bad.ready!()).ok).toBe(true);
    await expect(bad.remove({ image: photo("coffee.jpg"), attempt: 1 })).rejects.toThrow(
      /^The background-removal model in .* could not be loaded: /,
    );
    const report = await bad.ready!();
    expect(report.ok).toBe(false);
    expect(report.detail).toContain("could not be loaded");
    await bad.close!();
  }, SLOW);

  test("an empty model folder that cannot be assembled is reported, not crashed on", async () => {
    const dir = join(root, "half");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "preprocessor_config.json"), JSON.stringify(PREPROCESSOR_CONFIG));
    const half = createIsnetRemoval({ modelDir: dir, threads: 1, idleMs: 1000 });
    await half.init!();
    expect((await half.ready!()).ok).toBe(false);
    await expect(half.remove({ image: photo("coffee.jpg"), attempt: 1 })).rejects.toThrow(/holds a model configuration but no onnx/);
    expect(existsSync(join(dir, "onnx", "model.onnx"))).toBe(false);
  });
});

function readdirTmp(dir: string): string[] {
  const found: string[] = [];
  for (const sub of ["", "onnx"]) {
    for (const name of readdirSync(join(dir, sub))) if (name.includes(".tmp-")) found.push(name);
  }
  return found;
}
