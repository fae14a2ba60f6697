// OpenCV (the @techstark/opencv-js WebAssembly build, its wasm inline in one JS file) loaded once, on the first hinted
// cut-out: the grabCut refinement of hint.ts runs on it.

/** An OpenCV matrix: its pixels are a view into the wasm heap, freed with delete(). */
export type Mat = { data: Uint8Array; rows: number; cols: number; delete(): void };

/** The part of OpenCV's JavaScript API the refinement uses. */
export type CV = {
  Mat: { new (): Mat; new (rows: number, cols: number, type: number): Mat };
  Rect: new (x: number, y: number, width: number, height: number) => unknown;
  CV_8UC1: number;
  CV_8UC3: number;
  GC_BGD: number;
  GC_FGD: number;
  GC_PR_BGD: number;
  GC_PR_FGD: number;
  GC_INIT_WITH_MASK: number;
  grabCut(img: Mat, mask: Mat, rect: unknown, bgdModel: Mat, fgdModel: Mat, iterCount: number, mode: number): void;
};

let loading: Promise<{ cv: CV }> | null = null;

/**
 * The OpenCV module, wrapped in an object: the module is a thenable that resolves to itself, so awaiting it (or
 * resolving a promise with it) would never settle.
 */
export function opencv(): Promise<{ cv: CV }> {
  loading ??= load().catch((e) => {
    loading = null;
    throw e;
  });
  return loading;
}

async function load(): Promise<{ cv: CV }> {
  // Emscripten adds process-wide handlers (an unhandled rejection anywhere would abort the wasm runtime and rethrow):
  // the service keeps its own, so the ones OpenCV adds are taken off again.
  const before = { exception: process.listeners("uncaughtException"), rejection: process.listeners("unhandledRejection") };
  // The module ends in `if (typeof Module === 'undefined') Module = {}`, an assignment to an undeclared name that
  // throws in the strict code of the compiled binary ("Module is not defined"): a global Module stands ready (it
  // becomes the module object) and goes again once the module has it.
  const g = globalThis as { Module?: unknown };
  const ownGlobal = !("Module" in g);
  if (ownGlobal) g.Module = {};
  let cv: CV & { onRuntimeInitialized?: () => void };
  try {
    // require, not import: the CommonJS module's `then` would become an export and make `await import()` hang.
    cv = require("@techstark/opencv-js");
  } finally {
    if (ownGlobal) delete g.Module;
  }
  try {
    if (!(cv as { Mat?: unknown }).Mat) {
      // The wasm compiles asynchronously; a timer keeps a script that has nothing else to do alive meanwhile.
      const keepAlive = setInterval(() => {}, 1000);
      try {
        await new Promise<void>((resolve, reject) => {
          const timeout = setTimeout(() => reject(new Error("OpenCV did not initialise within 60 s")), 60_000);
          cv.onRuntimeInitialized = () => {
            clearTimeout(timeout);
            resolve();
          };
        });
      } finally {
        clearInterval(keepAlive);
      }
    }
  } finally {
    for (const l of process.listeners("uncaughtException")) if (!before.exception.includes(l)) process.off("uncaughtException", l);
    for (const l of process.listeners("unhandledRejection")) if (!before.rejection.includes(l)) process.off("unhandledRejection", l);
  }
  return { cv };
}
