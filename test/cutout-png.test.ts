// The cut-out's own PNG encoder (plugins/background-removal-isnet/png.ts): what it writes decodes, in other readers,
// to exactly the pixels it was given, in any size.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { encodeRgbaPng } from "../plugins/background-removal-isnet/png";

/** Pixels with structure (gradients, hard edges, noise, every alpha level) so each filter and deflate path is exercised. */
function pixels(width: number, height: number, seed = 7): Uint8Array {
  const out = new Uint8Array(width * height * 4);
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) >> 16) & 255;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      out[i] = (x * 255) / Math.max(1, width - 1);
      out[i + 1] = x > width / 2 ? 200 : (y * 7) & 255;
      out[i + 2] = rand();
      out[i + 3] = (x + y) % 256;
    }
  }
  return out;
}

test("a PNG the encoder writes decodes to the same RGBA pixels (libspng through sharp)", async () => {
  for (const [w, h] of [[1, 1], [3, 5], [257, 130], [640, 1000], [1024, 937]] as const) {
    const rgba = pixels(w, h);
    const png = encodeRgbaPng(rgba, w, h);
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect({ w: info.width, h: info.height, channels: info.channels }).toEqual({ w, h, channels: 4 });
    expect(Buffer.compare(data, Buffer.from(rgba))).toBe(0);
  }
});

test("pixels that start off a 4-byte boundary (a view into a larger buffer) encode the same", async () => {
  const rgba = pixels(33, 17);
  const holder = new Uint8Array(rgba.length + 3);
  holder.set(rgba, 1);
  const offset = holder.subarray(1, 1 + rgba.length);
  expect(offset.byteOffset % 4).toBe(1);
  expect(Buffer.compare(encodeRgbaPng(offset, 33, 17), encodeRgbaPng(rgba, 33, 17))).toBe(0);
  const { data } = await sharp(encodeRgbaPng(offset, 33, 17)).raw().toBuffer({ resolveWithObject: true });
  expect(Buffer.compare(data, Buffer.from(rgba))).toBe(0);
});

test("ffmpeg reads the encoder's PNG too, with its alpha", async () => {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-png-"));
  try {
    const rgba = pixels(300, 200);
    writeFileSync(join(dir, "a.png"), encodeRgbaPng(rgba, 300, 200));
    const proc = Bun.spawn(["ffmpeg", "-v", "error", "-i", join(dir, "a.png"), "-f", "rawvideo", "-pix_fmt", "rgba", "-"], { stdout: "pipe", stderr: "pipe" });
    const raw = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
    expect(await proc.exited).toBe(0);
    expect(Buffer.compare(Buffer.from(raw), Buffer.from(rgba))).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("pixels that do not match the size given are refused", () => {
  expect(() => encodeRgbaPng(new Uint8Array(10), 2, 2)).toThrow("expected 2x2 RGBA pixels");
  expect(() => encodeRgbaPng(new Uint8Array(0), 0, 0)).toThrow("RGBA pixels");
});
