// Loads a transformers.js-layout segmentation model (ISNet by default) with onnxruntime-node, offline, and runs it.
// Imported lazily by the plugin so the service and `vitrin models install` do not load ONNX Runtime until a cut-out is asked for.
// Must stay the first import: it has to run before ONNX Runtime is loaded.
import "./native-env";
import { AutoModel, AutoProcessor, env, LogLevel, RawImage, Tensor, type PreTrainedModel, type Processor } from "@huggingface/transformers";
import type { InferenceSession, Tensor as OrtTensor } from "onnxruntime-node";
import { resizeRgb, type Probability, type Upright } from "./cutout";

// Local files only: no hub, and no file cache either (its keys are paths, so a stale copy could shadow a replaced model).
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.useFSCache = false;
env.useBrowserCache = false;
env.logLevel = LogLevel.ERROR;

export type LoadedModel = {
  inputName: string;
  outputName: string;
  /** The model's input grid when the preprocessor fixes it (1024×1024 for ISNet and RMBG), else null. */
  inputSize: { width: number; height: number } | null;
  loadMs: number;
  infer(src: Upright): Promise<{ prob: Probability; preprocessMs: number; inferenceMs: number }>;
  dispose(): Promise<void>;
};

export type SessionSettings = {
  threads: number;
  /** ONNX Runtime's CPU memory arena (see sessionOptions); default true. */
  memoryArena?: boolean;
};

/**
 * onnxruntime-node options for ISNet on a few cores, measured on 2 threads at 1024×1024:
 * - CPU arena on by default. With the int8 model (2026-11-25, ONNX Runtime alone): arena on ~1.07 s a run and a peak of
 *   0.31 GB, off ~1.76 s and 0.28 GB: without it, every run mallocs its activations afresh and page-faults them in,
 *   which costs more than the integer convolutions themselves. (With the fp32 model the trade was ~15 % of speed for
 *   ~0.2 GB, so it was off.) The arena is held only while the session lives: the idle unload releases the session and,
 *   with native-env's mmap threshold, its memory goes back to the kernel.
 * - memory pattern off: it plans for one input shape and holds that plan; with the int8 model it added ~0.16 GB for
 *   no speed (fp32: ~550 MB).
 * - full graph optimisation (NCHWc layouts, and the QDQ pairs folded into QLinearConv): with the fp32 model ~1.5 s
 *   per run against ~2.3 s at "basic".
 * Intra-op threads as configured, one inter-op thread. VITRIN_DEKUPE_MEMORY_ARENA=false turns the arena off for hosts
 * where every megabyte between cut-outs counts.
 */
export function sessionOptions({ threads, memoryArena = true }: SessionSettings): InferenceSession.SessionOptions {
  return {
    executionProviders: ["cpu"],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    enableCpuMemArena: memoryArena,
    enableMemPattern: false,
  };
}

type ImageProcessorSettings = {
  do_rescale?: boolean;
  rescale_factor?: number;
  do_normalize?: boolean;
  image_mean?: number | number[];
  image_std?: number | number[];
  do_resize?: boolean;
  size?: { width?: number; height?: number };
  do_pad?: boolean;
  do_center_crop?: boolean;
  do_thumbnail?: boolean;
  do_crop_margin?: boolean;
  do_flip_channel_order?: boolean;
};

/**
 * The processor's own rescale → normalise → HWC-to-CHW steps, fused into one pass over an image already at the input
 * size: transformers.js' generic path takes 70–170 ms per 1024² image here, this about 5 ms. It reads every setting from
 * the processor transformers.js built from preprocessor_config.json, and returns null (use the processor itself) for
 * any setting it does not reproduce. A test checks both give the same tensor.
 */
export function fastPixelValues(processor: Processor, rgb: Uint8Array, width: number, height: number, reuse?: Float32Array): Float32Array | null {
  const ip = processor.image_processor as ImageProcessorSettings | undefined;
  if (!ip || (processor as { feature_extractor?: unknown }).feature_extractor) return null;
  if (ip.do_pad || ip.do_center_crop || ip.do_thumbnail || ip.do_crop_margin) return null;
  if (ip.do_resize !== false && (ip.size?.width !== width || ip.size?.height !== height)) return null;
  const channel = (v: number | number[] | undefined, fallback: number): number[] | null => {
    if (v === undefined) return [fallback, fallback, fallback];
    if (typeof v === "number") return [v, v, v];
    return v.length === 3 ? v : null;
  };
  const normalize = ip.do_normalize ?? false;
  const mean = normalize ? channel(ip.image_mean, 0) : [0, 0, 0];
  const std = normalize ? channel(ip.image_std, 1) : [1, 1, 1];
  if (!mean || !std) return null;
  const scale = ip.do_rescale ?? true ? (ip.rescale_factor ?? 1 / 255) : 1;
  const n = width * height;
  // Every pixel is written below, so a buffer of the right size from the last call serves as it is.
  const out = reuse?.length === 3 * n ? reuse : new Float32Array(3 * n);
  // Each plane reads its channel from the interleaved RGB (BGR when the config flips the order).
  for (let c = 0; c < 3; c++) {
    const from = ip.do_flip_channel_order ? 2 - c : c;
    // A byte has 256 values: a table of their normalised floats turns 3 M multiply-subtract-divides into lookups.
    const table = new Float32Array(256);
    for (let v = 0; v < 256; v++) table[v] = (v * scale - mean[from]) / std[from];
    const plane = c * n;
    for (let i = 0, j = from; i < n; i++, j += 3) out[plane + i] = table[rgb[j]];
  }
  return out;
}

/**
 * `modelDir` is passed as an absolute path rather than through env.localModelPath: the latter is process-wide, and an
 * absolute path can never be mistaken for a hub model id, so transformers.js never even forms a remote URL for it.
 */
export async function loadModel(modelDir: string, settings: SessionSettings): Promise<LoadedModel> {
  const started = performance.now();
  const processor: Processor = await AutoProcessor.from_pretrained(modelDir);
  const model: PreTrainedModel = await AutoModel.from_pretrained(modelDir, {
    dtype: "fp32",
    device: "cpu",
    session_options: sessionOptions(settings),
  });
  const session = model.sessions?.model as InferenceSession | undefined;
  if (!session) {
    await model.dispose();
    throw new Error(`${modelDir} does not hold a single-session image-segmentation model (no onnx/model.onnx session)`);
  }
  const inputName = session.inputNames[0];
  const outputName = session.outputNames[0];
  const ip = processor.image_processor as ImageProcessorSettings | undefined;
  const inputSize = ip?.do_resize !== false && ip?.size?.width && ip.size.height ? { width: ip.size.width, height: ip.size.height } : null;
  const loadMs = performance.now() - started;
  // The model's input, kept from one cut-out to the next (the plugin runs one at a time): a fresh 12 MB array each time
  // cost its page faults and a collection now and then (4-11 ms against ~4).
  let input: Float32Array | null = null;

  return {
    inputName,
    outputName,
    inputSize,
    loadMs,
    async infer(src) {
      const t0 = performance.now();
      // sharp shrinks the photo to the input grid much faster than RawImage.resize would; the processor then only normalises.
      const rgb = inputSize ? await resizeRgb(src, inputSize.width, inputSize.height) : src.rgb;
      const w = inputSize?.width ?? src.width;
      const h = inputSize?.height ?? src.height;
      let pixelValues: Tensor;
      const fast = inputSize ? fastPixelValues(processor, rgb, w, h, input ?? undefined) : null;
      input = fast;
      if (fast) {
        pixelValues = new Tensor("float32", fast, [1, 3, h, w]);
      } else {
        const image = new RawImage(new Uint8ClampedArray(rgb.buffer, rgb.byteOffset, rgb.length), w, h, 3);
        pixelValues = ((await processor(image)) as { pixel_values: Tensor }).pixel_values;
      }
      const t1 = performance.now();
      // Only the first output is fetched: the bundled ISNet has no other, but a custom export may add side maps and
      // feature maps (~200 MB per run for ISNet's own).
      const out = await session.run({ [inputName]: pixelValues.ort_tensor as OrtTensor }, [outputName]);
      const t2 = performance.now();
      let result = new Tensor(out[outputName] as never);
      if (result.type !== "float32") result = result.to("float32");
      const dims = result.dims;
      const mh = dims[dims.length - 2];
      const mw = dims[dims.length - 1];
      const data = result.data as Float32Array;
      // ISNet and RMBG end in a sigmoid; exports that stop at logits (BiRefNet) get one here.
      let min = Infinity, max = -Infinity;
      for (let i = 0; i < data.length; i++) {
        const v = data[i];
        if (v < min) min = v;
        if (v > max) max = v;
      }
      if (min < -1e-3 || max > 1 + 1e-3) for (let i = 0; i < data.length; i++) data[i] = 1 / (1 + Math.exp(-data[i]));
      const guide = async () => (mw === w && mh === h ? rgb : await resizeRgb(src, mw, mh));
      return { prob: { data, width: mw, height: mh, guide }, preprocessMs: t1 - t0, inferenceMs: t2 - t1 };
    },
    async dispose() {
      await model.dispose();
    },
  };
}
