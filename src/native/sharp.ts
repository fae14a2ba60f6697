// sharp, loaded on first use: its libvips costs ~130 ms and ~30 MB at start, which a server that has not yet seen an
// image (or a CLI command that never will) should not pay. Import `sharp` from here instead of from "sharp".
import type SharpModule from "sharp";

type Sharp = typeof SharpModule;
let real: Sharp | null = null;

function load(): Sharp {
  // require() keeps the bundler from evaluating sharp with the rest of the program at start.
  real ??= require("sharp") as Sharp;
  return real;
}

/** Callable and readable exactly like sharp's default export. */
const sharp = new Proxy(function sharp() {} as unknown as Sharp, {
  apply: (_target, _this, args: unknown[]) => (load() as unknown as (...a: unknown[]) => unknown)(...args),
  get: (_target, prop) => Reflect.get(load(), prop),
}) as Sharp;

export default sharp;
