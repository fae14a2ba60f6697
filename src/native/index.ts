// Loads the native addons (sharp, ONNX Runtime) inside a compiled binary: unpacks the embedded `.node` files and the
// shared libraries they link into a cache folder once, preloads each library by absolute path, then loads the addon.
//
// `bun build --compile` embeds files but cannot hand them to the dynamic linker, which needs real files; and the
// addons find their libraries through RPATH/RUNPATH relative to themselves, so the files keep their node_modules
// layout under the cache folder. scripts/build.ts rewrites the addons' own loaders to call `loadAddon` and fills
// ./embedded with the files; from source none of this runs.
import { dlopen, FFIType } from "bun:ffi";
import { accessSync, chmodSync, constants, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError, defaultNativeDir } from "../config";
import { isEmbeddedPath } from "../kernel";
import { embedded, type EmbeddedAddon } from "./embedded";

export { embedded, type Embedded, type EmbeddedModel } from "./embedded";
export { giveBackMemory, withLibc } from "./memory";
export { createIdleReclaim, type IdleReclaim } from "./idle";
export { default as sharp } from "./sharp";

const loaded = new Map<string, unknown>();
const RTLD_NOW = 2;
const RTLD_GLOBAL = 0x100;
let libc: ReturnType<typeof openLibc> | null = null;

function openLibc() {
  return dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
    dlopen: { args: [FFIType.cstring, FFIType.i32], returns: FFIType.ptr },
    dlerror: { args: [], returns: FFIType.cstring },
  });
}

/** dlopen(3) by absolute path; the handle is never closed, since that would unload the library under the addon. */
function preload(path: string): void {
  libc ??= openLibc();
  const handle = libc.symbols.dlopen(Buffer.from(`${path}\0`), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) throw new Error(`dlopen ${path}: ${libc.symbols.dlerror()}`);
}

/** The cache folder for this build's native files (VITRIN_NATIVE_DIR, else a per-user cache). */
export function nativeRoot(env: Record<string, string | undefined> = process.env): string {
  return join(env.VITRIN_NATIVE_DIR || defaultNativeDir(env), embedded?.buildId ?? "source");
}

/** Writes one embedded file beside its final name and renames it, so concurrent starts never see half a file. */
async function unpack(from: string, to: string, size: number, mode = 0o755): Promise<void> {
  if (existsSync(to) && statSync(to).size === size) return;
  mkdirSync(dirname(to), { recursive: true });
  const part = `${to}.${process.pid}.part`;
  writeFileSync(part, await Bun.file(from).bytes());
  chmodSync(part, mode);
  renameSync(part, to);
}

function unpackSync(from: string, to: string, size: number): void {
  if (existsSync(to) && statSync(to).size === size) return;
  mkdirSync(dirname(to), { recursive: true });
  const part = `${to}.${process.pid}.part`;
  // Module initialisation is synchronous, so the first load cannot await; Bun.file(...).bytes() would.
  const { readFileSync } = require("node:fs") as typeof import("node:fs");
  writeFileSync(part, readFileSync(from));
  chmodSync(part, 0o755);
  renameSync(part, to);
}

function addonOf(name: string): EmbeddedAddon {
  const addon = embedded?.addons.find((a) => a.name === name);
  if (!addon) throw new Error(`this build carries no native addon "${name}"`);
  return addon;
}

/** Unpacks every embedded native file now (e.g. at start, so the first image request does not pay for it). */
export async function unpackAll(env: Record<string, string | undefined> = process.env): Promise<string | null> {
  if (!embedded) return null;
  const root = nativeRoot(env);
  for (const addon of embedded.addons) {
    for (const file of [...addon.libraries, addon.addon]) await unpack(file.embedded, join(root, file.path), file.size);
  }
  return root;
}

/** A file embedded in the binary that a plugin copies to `to` on first use (the renderer's fonts). */
export type CopiedOut = { from: string; to: string };

/** Copies the embedded files among `files` that have no copy of their size yet (the unpack child runs this). */
export async function copyOut(files: CopiedOut[]): Promise<void> {
  for (const f of files.filter((f) => isEmbeddedPath(f.from))) await unpack(f.from, f.to, Bun.file(f.from).size, 0o644);
}

/**
 * When some of `files` have no copy yet, copies them in a child process of this binary, in the background: a process
 * that reads an embedded file keeps its pages of the executable in its RSS for good (~75 MB for all the fonts, which
 * the renderer would otherwise copy out in the serving process at its first render). Compares sizes only, reading
 * nothing. Until the child is done, a plugin that needs a file copies it itself, as without this.
 */
export function copyOutInChild(files: CopiedOut[]): boolean {
  const missing = files.filter((f) => isEmbeddedPath(f.from) && !(existsSync(f.to) && statSync(f.to).size === Bun.file(f.from).size));
  if (!embedded || missing.length === 0 || process.env._VITRIN_NATIVE_UNPACKING_CHILD) return false;
  const child = Bun.spawn([process.execPath, UNPACK_COMMAND], {
    env: { ...process.env, _VITRIN_NATIVE_UNPACKING_CHILD: "1" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit",
  });
  child.unref();
  return true;
}

/** The hidden command a compiled binary runs in a child process to unpack its native files (see unpackInChild). */
export const UNPACK_COMMAND = "__unpack-native";

/**
 * Unpacks every embedded native file in a child process of this same binary. Reading an embedded file faults its pages
 * of the executable into this process's RSS for good (~60 MB for ONNX Runtime); in a child they go when it exits.
 * Returns false when the child could not do it, and the caller unpacks in-process instead.
 */
function unpackInChild(): boolean {
  if (process.env._VITRIN_NATIVE_UNPACKING_CHILD) return false; // this is the child
  const child = Bun.spawnSync([process.execPath, UNPACK_COMMAND], {
    env: { ...process.env, _VITRIN_NATIVE_UNPACKING_CHILD: "1" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit",
  });
  return child.exitCode === 0;
}

function unpacked(addon: EmbeddedAddon, root: string): boolean {
  return [...addon.libraries, addon.addon].every((f) => {
    const to = join(root, f.path);
    return existsSync(to) && statSync(to).size === f.size;
  });
}

/** A native library that could not be unpacked or loaded: the machine's fault, never the input's. */
export class NativeLoadError extends Error {}

/**
 * In a compiled binary, makes sure the native folder can be created and written now, so a folder the service user
 * cannot write (a system user's unwritable home) stops the start with the setting to change, instead of failing
 * every image later. From source there is nothing to unpack.
 */
export function checkNativeDir(env: Record<string, string | undefined> = process.env): void {
  if (!embedded) return;
  const root = nativeRoot(env);
  try {
    mkdirSync(root, { recursive: true });
    accessSync(root, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw new ConfigError(
      `VITRIN_NATIVE_DIR: the native libraries are unpacked to ${root}, which cannot be written (${(e as Error).message}); ` +
        "set VITRIN_NATIVE_DIR to a writable folder on a file system that allows executing",
    );
  }
}

/** Returns the addon's exports, unpacking and loading it on first use. */
export function loadAddon(name: string): unknown {
  if (loaded.has(name)) return loaded.get(name);
  const addon = addonOf(name);
  const root = nativeRoot();
  if (!unpacked(addon, root)) unpackInChild();
  try {
    for (const lib of addon.libraries) {
      const path = join(root, lib.path);
      unpackSync(lib.embedded, path, lib.size);
      // The addon names the library by soname; once it is loaded by absolute path, the linker reuses it.
      preload(path);
    }
    const path = join(root, addon.addon.path);
    unpackSync(addon.addon.embedded, path, addon.addon.size);
    const module = { exports: {} as unknown };
    process.dlopen(module, path);
    loaded.set(name, module.exports);
    return module.exports;
  } catch (e) {
    throw new NativeLoadError(
      `could not load the native ${name} library from ${root}: ${(e as Error).message}. ` +
        "VITRIN_NATIVE_DIR must be a writable folder on a file system that allows executing (not mounted noexec).",
    );
  }
}
