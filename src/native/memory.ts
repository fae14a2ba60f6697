// Hands memory the process no longer uses back to the kernel: a full garbage collection, then glibc's malloc_trim.
// Used after work (a cut-out, a model unload, an idle instance), never on a request's path.
import { dlopen, FFIType } from "bun:ffi";

const LIBC_NAMES: Record<string, string[]> = {
  linux: ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"],
  darwin: ["libSystem.B.dylib"],
};

/** Opens libc with `symbols`, calls `use`, and closes it again; null when no libc offers them (musl has no malloc_trim). */
export function withLibc<T>(symbols: Parameters<typeof dlopen>[1], use: (fns: Record<string, (...args: unknown[]) => unknown>) => T): T | null {
  for (const lib of LIBC_NAMES[process.platform] ?? []) {
    let handle: ReturnType<typeof dlopen> | null = null;
    try {
      handle = dlopen(lib, symbols);
    } catch {
      continue;
    }
    try {
      return use(handle.symbols as unknown as Record<string, (...args: unknown[]) => unknown>);
    } catch {
      return null;
    } finally {
      handle.close();
    }
  }
  return null;
}

/**
 * glibc's malloc_trim(0): every malloc arena (each native thread that allocated has its own, libvips' workers and ONNX
 * Runtime's included) gives its free pages back, which free() alone leaves mapped. Returns whether it was available.
 */
export function mallocTrim(): boolean {
  if (process.platform !== "linux") return false;
  return withLibc({ malloc_trim: { args: [FFIType.u64], returns: FFIType.i32 } }, (libc) => (libc.malloc_trim(0), true)) ?? false;
}

/**
 * A full collection first (the collector does not see the native memory that JS objects such as sharp's buffers hold
 * on to, so it may wait with them), then malloc_trim, so what the collection freed is returned too. Emptying sharp's
 * operation cache as well was measured and changed nothing: after a render it held ~1 MB.
 */
export function giveBackMemory(): { trimmed: boolean } {
  Bun.gc(true);
  return { trimmed: mallocTrim() };
}
