// The one model of an ISNet plugin instance: loaded on first use (assembling the bundled model if needed), used by one
// cut-out at a time, and unloaded after a while without work so its memory goes back.
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../src/plugins";
import { inspectModel, installModel, MODEL_FILE, ModelError } from "./model";
import type { LoadedModel } from "./runtime";

/** What one plugin instance holds: its settings, and the model's state between cut-outs. */
export type ModelSession = {
  modelDir: string;
  modelFile: string;
  threads: number;
  memoryArena: boolean;
  /** Unload after this long without work; 0 unloads after every cut-out. */
  idleMs: number;
  logger: Logger;
  model: LoadedModel | null;
  /** A model file that failed to load stays failed (for ready()) until the file changes. */
  loadFailure: { key: string | null; message: string } | null;
  /** The end of the queue of cut-outs: each waits for the one before. */
  tail: Promise<void>;
  waiting: number;
  idleTimer: ReturnType<typeof setTimeout> | null;
};

export function newSession(o: Pick<ModelSession, "modelDir" | "threads" | "memoryArena" | "idleMs" | "logger">): ModelSession {
  return { ...o, modelFile: join(o.modelDir, MODEL_FILE), model: null, loadFailure: null, tail: Promise.resolve(), waiting: 0, idleTimer: null };
}

/** Size, time and inode of a file: a changed model file has another key. */
export function fileKey(file: string): string | null {
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

/** One job at a time: a second inference beside the first would double the activations (~0.2 GB with the int8 model, ~0.7 GB with fp32) and halve the speed of both. */
export async function exclusive<T>(s: ModelSession, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  const before = s.tail;
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  s.tail = before.then(() => mine);
  s.waiting++;
  try {
    await unlessAborted(before, signal);
    return await fn();
  } finally {
    s.waiting--;
    release();
  }
}

export function clearIdle(s: ModelSession): void {
  if (s.idleTimer) clearTimeout(s.idleTimer);
  s.idleTimer = null;
}

export async function unload(s: ModelSession, reason: string): Promise<void> {
  clearIdle(s);
  if (!s.model) return;
  const m = s.model;
  s.model = null;
  await m.dispose();
  // The session's weights and prepacked kernels were freed into malloc's arenas; trimmed, they leave the RSS too.
  (await import("./native-env")).giveBackMemory();
  s.logger.info("background-removal model unloaded", { reason });
}

/** After a cut-out: unload once nothing is waiting and VITRIN_MODEL_IDLE_MS has passed (at once when it is 0). */
export function scheduleIdle(s: ModelSession): void {
  clearIdle(s);
  if (!s.model || s.waiting > 0) return;
  const fire = () =>
    void exclusive(s, undefined, async () => {
      if (s.waiting <= 1) await unload(s, s.idleMs === 0 ? "after each cut-out (VITRIN_MODEL_IDLE_MS=0)" : "idle");
    }).catch((e) => s.logger.warn("background-removal model unload failed", { err: e }));
  if (s.idleMs === 0) return fire();
  s.idleTimer = setTimeout(fire, s.idleMs);
  // The idle timer alone must not keep the process (or a test run) alive.
  s.idleTimer.unref?.();
}

/** The model in memory, loading it (and assembling the bundled one when missing or outdated) if needed. */
export async function ensureLoaded(s: ModelSession): Promise<{ model: LoadedModel; loadMs: number }> {
  if (s.model) return { model: s.model, loadMs: 0 };
  const { modelDir, threads, memoryArena } = s;
  let state = await inspectModel(modelDir);
  if (state.kind === "missing" || state.kind === "outdated") {
    await installModel(modelDir, s.logger);
    state = await inspectModel(modelDir);
  }
  if (state.kind === "corrupt") {
    throw new ModelError(
      `The background-removal model in ${modelDir} is damaged (${state.reason}). Run \`vitrin models install\` to assemble it again.`,
    );
  }
  if (state.kind === "missing") throw new ModelError(`The background-removal model is not installed in ${modelDir} (${state.reason}).`);
  if (state.kind === "outdated") throw new ModelError(`The background-removal model in ${modelDir} could not be updated (${state.reason}).`);
  const key = fileKey(s.modelFile);
  let model: LoadedModel;
  try {
    const { loadModel } = await import("./runtime");
    model = await loadModel(modelDir, { threads, memoryArena });
  } catch (e) {
    const detail = ((e as Error).message ?? String(e)).split("\n")[0].slice(0, 300);
    const message = `The background-removal model in ${modelDir} could not be loaded: ${detail}`;
    s.loadFailure = { key, message };
    throw new ModelError(message);
  }
  s.model = model;
  s.loadFailure = null;
  s.logger.info("background-removal model loaded", {
    modelDir,
    kind: state.kind,
    ms: Math.round(model.loadMs),
    threads,
    memoryArena,
    input: model.inputSize ? `${model.inputSize.width}x${model.inputSize.height}` : "from processor",
  });
  return { model, loadMs: model.loadMs };
}
