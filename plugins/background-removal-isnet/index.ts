// Background removal with the ISNet segmentation model, run offline through transformers.js and onnxruntime-node:
// one model per process, loaded on first use, one cut-out at a time, unloaded when idle (session.ts).
import { definePlugin, type BackgroundRemovalPlugin, type Cutout, type CutoutHint, type CutoutRequest, type Logger, type ReadyReport } from "../../src/plugins";
import { modelsInstall } from "./commands";
import sharp from "../../src/plugins/sharp";
import { createHash } from "node:crypto";
import { decodeUpright, makeCutout, NoProductError, resizeRgb, type Probability, type Upright } from "./cutout";
import { describeHint, hintedMatte, hintOnGrid } from "./hint";
import { inspectModel, installModel } from "./model";
import { clearIdle, ensureLoaded, exclusive, fileKey, newSession, scheduleIdle, unload, type ModelSession } from "./session";
import { isnetSettings } from "./settings";

export { installModel, inspectModel, MODEL_SHA256, MODEL_BYTES, MODEL_PACKAGE, ModelError, type InstallResult } from "./model";
export { NoProductError, VARIANTS, variantFor } from "./cutout";
export { isnetSettings, type IsnetSettings } from "./settings";

export type IsnetOptions = {
  /** Folder in transformers.js layout; the bundled ISNet is assembled here when it holds no model. */
  modelDir: string;
  /** Intra-op threads for one inference. */
  threads: number;
  /** ONNX Runtime's CPU memory arena: faster runs, a little more memory while loaded. Default true. */
  memoryArena?: boolean;
  /** Unload the model after this long without work; 0 unloads after every cut-out. */
  idleMs: number;
  logger?: Logger;
  /** False on an instance that runs no jobs: the model is neither assembled nor checked, since it is never used there. */
  runsJobs?: boolean;
};

export type IsnetRemoval = BackgroundRemovalPlugin & {
  /** Whether the model is in memory now. */
  loaded(): boolean;
};

const noop = () => {};
const quietLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => quietLogger, enabled: () => false };

export function createIsnetRemoval(options: IsnetOptions): IsnetRemoval {
  const { modelDir, threads, idleMs, memoryArena = true } = options;
  const session = newSession({ modelDir, threads, idleMs, memoryArena, logger: options.logger ?? quietLogger });
  const memo: MatteMemo = { last: null };
  return {
    slot: "background-removal",
    name: "isnet",
    async init() {
      if (options.runsJobs === false) {
        session.logger.info("background-removal model not assembled: this instance runs no jobs", { modelDir });
        return;
      }
      // A missing or broken model must not stop the service: ready() reports it and each cut-out fails with the reason.
      try {
        const result = await installModel(modelDir, session.logger);
        session.logger.info("background-removal model ready on disk", { modelDir, action: result.action });
      } catch (e) {
        session.logger.error("background-removal model unavailable", { modelDir, err: e });
      }
    },
    ready: async () => (options.runsJobs === false ? { ok: true, detail: "not used here: this instance runs no jobs (cut-outs run on the workers)" } : readiness(session)),
    async remove(request: CutoutRequest): Promise<Cutout> {
      request.signal?.throwIfAborted();
      clearIdle(session);
      try {
        return await exclusive(session, request.signal, () => cutOut(session, memo, request));
      } finally {
        scheduleIdle(session);
      }
    },
    async close() {
      clearIdle(session);
      memo.last = null;
      // Waits for a running cut-out to finish rather than freeing the session under it.
      await exclusive(session, undefined, () => unload(session, "close"));
    },
    loaded: () => session.model !== null,
  };
}

async function readiness(s: ModelSession): Promise<ReadyReport> {
  const { modelDir } = s;
  if (s.model) return { ok: true, detail: `model loaded from ${modelDir}` };
  const state = await inspectModel(modelDir);
  if (state.kind === "missing") return { ok: false, detail: `model not installed in ${modelDir}: run \`vitrin models install\`` };
  if (state.kind === "corrupt") return { ok: false, detail: `model in ${modelDir} is damaged: ${state.reason}` };
  if (state.kind === "outdated") return { ok: false, detail: `model in ${modelDir} needs assembling again: run \`vitrin models install\`` };
  if (s.loadFailure && s.loadFailure.key === fileKey(s.modelFile)) return { ok: false, detail: s.loadFailure.message };
  return { ok: true, detail: `${state.kind === "bundled" ? "ISNet" : "custom"} model installed in ${modelDir}; loads on first use` };
}

/** The model's matte of the last photo it saw (about 4 MB), so a hinted retry of the same photo need not run it again. */
type MatteMemo = { last: { key: string; data: Float32Array; width: number; height: number } | null };

/**
 * The model's probability map of `upright` (photo bytes hashed to `key`): a hinted cut-out of the photo the model
 * saw last reuses that map (the model is deterministic), neither loading the model nor running it; every run is kept.
 */
async function matteOf(s: ModelSession, memo: MatteMemo, key: string, upright: Upright, hinted: boolean, signal?: AbortSignal) {
  const last = memo.last;
  if (hinted && last && last.key === key) {
    const { data, width, height } = last;
    const prob: Probability = { data, width, height, guide: () => resizeRgb(upright, width, height) };
    return { prob, loadMs: 0, preprocessMs: 0, inferenceMs: 0 };
  }
  const { model: m, loadMs } = await ensureLoaded(s);
  signal?.throwIfAborted();
  const { prob, preprocessMs, inferenceMs } = await m.infer(upright);
  // ONNX Runtime cannot be interrupted mid-run; an abort is honoured as soon as it returns.
  signal?.throwIfAborted();
  // Kept as it is, not copied: nothing after writes into the model's map (makeCutout copies before it drops specks).
  memo.last = { key, data: prob.data, width: prob.width, height: prob.height };
  return { prob, loadMs, preprocessMs, inferenceMs };
}

/** One cut-out, its turn come: decode upright, infer, make the cut-out, with the time each step took. */
async function cutOut(s: ModelSession, memo: MatteMemo, { image, attempt, hint, signal }: CutoutRequest): Promise<Cutout> {
  signal?.throwIfAborted();
  const t0 = performance.now();
  const upright = await decodeUpright(image);
  const t1 = performance.now();
  const key = createHash("sha256").update(image).digest("hex");
  const { prob, loadMs, preprocessMs, inferenceMs } = await matteOf(s, memo, key, upright, !!hint, signal);
  signal?.throwIfAborted();
  const t3 = performance.now();
  // No full collection and malloc_trim after each cut-out (they were added for the fp32 model's ~1.2 GB peak): with the
  // int8 model six 1600 px cut-outs peaked at 0.45 GB RSS with or without them, and they took 6-11 ms a cut-out
  // (2026-11-25, load ~3). The service's idle reclaim (VITRIN_IDLE_TRIM_MS) gives the memory back once work stops.
  const cut = hint ? await hintedCutout(image, upright, prob, hint) : await makeCutout(upright, prob, attempt);
  const t4 = performance.now();
  // load_ms is 0 when the model was already loaded.
  const ms = Math.round;
  cut.timings = {
    load_ms: ms(loadMs),
    decode_ms: ms(t1 - t0),
    preprocess_ms: ms(preprocessMs),
    inference_ms: ms(inferenceMs),
    postprocess_ms: ms(t4 - t3),
    ...cut.timings,
  };
  s.logger.debug("cut-out made", { attempt, variant: cut.variant, ms: ms(t4 - t0), ...cut.timings });
  return cut;
}

/**
 * The cut-out of the object under `hint` (photo pixels): the model's matte steered by a graph cut (hint.ts), then
 * cleaned, cropped and encoded like attempt 1's. A retry with a hint does the same whatever its number.
 */
async function hintedCutout(image: Uint8Array, upright: Upright, prob: Probability, hint: CutoutHint): Promise<Cutout> {
  // The hint is in the photo's pixels; the working copy may be smaller (WORK_MAX_SIDE).
  const meta = await sharp(image).metadata();
  const photoW = meta.autoOrient?.width || meta.width || upright.width;
  const photoH = meta.autoOrient?.height || meta.height || upright.height;
  const grid = hintOnGrid(hint, prob.width / photoW, prob.height / photoH, prob.width, prob.height);
  const matte = await hintedMatte(prob, grid);
  const cut = await makeCutout(upright, { ...prob, data: matte.data }, 1).catch((e: unknown) => {
    if (!(e instanceof NoProductError)) throw e;
    throw new NoProductError(`No object found under the hint (${describeHint(hint)}): the model saw nothing there and the colours did not set anything apart. Try a box round the object.`);
  });
  return { ...cut, variant: `hint: ${describeHint(hint)}; ${matte.label}`, timings: matte.timings };
}

export default definePlugin({
  slot: "background-removal",
  name: "isnet",
  description: "ISNet segmentation model (offline, ONNX Runtime on CPU): transparent cut-out trimmed to the product.",
  settings: isnetSettings,
  commands: [modelsInstall],
  create: ({ settings, logger, runsJobs }) => createIsnetRemoval({ ...settings, logger, runsJobs }),
});
