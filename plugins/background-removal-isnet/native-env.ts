// Process-level settings ONNX Runtime needs before it loads (import this module first): telemetry off, and glibc's
// malloc told to hand large blocks back to the kernel.
import { FFIType } from "bun:ffi";
import { giveBackMemory as giveBack, withLibc } from "../../src/plugins/native";

/** Sets a variable with libc's setenv(), which Bun's process.env does not do: native code reads it with getenv(). */
export function setNativeEnv(name: string, value: string): boolean {
  process.env[name] = value;
  return (
    withLibc({ setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 } }, (libc) =>
      libc.setenv(Buffer.from(`${name}\0`), Buffer.from(`${value}\0`), 1) === 0,
    ) ?? false
  );
}

/**
 * ONNX Runtime mallocs its large blocks (the CPU arena's regions, weights, prepacked kernels; with the arena off, every
 * activation). glibc raises its mmap threshold each time such a block is freed, so later ones come from the heap and
 * stay mapped after they are freed. A fixed 128 KiB threshold (glibc's default starting value) keeps them mmapped, so a
 * released session gives them back. Measured with the ISNet arena on: the same speed, a peak RSS ~0.1–0.2 GB lower, and
 * ~0.1 GB resident after the idle unload instead of ~0.4 GB (with the arena off it saved ~0.4 GB of peak).
 * Skipped when the operator set MALLOC_MMAP_THRESHOLD_ (glibc reads it at start) or when libc is not glibc.
 */
export function pinMmapThreshold(): boolean {
  if (process.platform !== "linux" || process.env.MALLOC_MMAP_THRESHOLD_ !== undefined) return false;
  const M_MMAP_THRESHOLD = -3;
  return (
    withLibc({ mallopt: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } }, (libc) => libc.mallopt(M_MMAP_THRESHOLD, 128 * 1024) === 1) ??
    false
  );
}

/**
 * Hands back what the model and the cut-outs left behind, after the model is unloaded: a full garbage collection (a
 * cut-out leaves ~25 MB of typed arrays and sharp buffers, which the collector does not see as native memory) and
 * glibc's malloc_trim (libvips' and ONNX Runtime's threads leave freed pages in their malloc arenas). It no longer runs
 * after every cut-out: with the fp32 model that cut the peak RSS from ~1.27 GB to ~1.16–1.20 GB, with the int8 model
 * the peak is ~0.6 GB without it, and the service's idle reclaim does the same once work stops. Returns whether
 * malloc_trim was available.
 */
export function giveBackMemory(): boolean {
  return giveBack().trimmed;
}

// transformers.js sets process.env.ORT_DISABLE_TELEMETRY itself, but under Bun that never reaches the getenv() of
// ONNX Runtime, which then looks up mobile.events.data.microsoft.com for every session. An operator's explicit choice wins.
if (process.env.ORT_DISABLE_TELEMETRY === undefined || process.env.ORT_DISABLE_TELEMETRY === "1") setNativeEnv("ORT_DISABLE_TELEMETRY", "1");
export const mmapThresholdPinned = pinMmapThreshold();
