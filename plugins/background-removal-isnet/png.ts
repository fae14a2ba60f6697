// The cut-out's PNG encoder: RGBA rows filtered with "Up" and deflated in strips on zlib's thread pool, so the two
// cores that sat in the model's run share the encode too.
//
// Why not sharp's PNG writer (libspng): it tries all five filters on every row and deflates on one thread, ~60-75 ms
// for a 1024 px cut-out on a 2-core EPYC; this writes a file 2-5 % larger in ~25 ms (docs/benchmarks.md, bench:dekupe).
// The format is small and fixed (RFC 2083): signature, IHDR, IDAT, IEND, each chunk with its CRC; the zlib stream is
// joined from raw deflate strips, each but the last ended with a sync flush (byte-aligned, not final), as pigz does.
import zlib from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** zlib's level 2: on filtered photo rows ~30 % smaller than level 1 for ~40 % more time, still under the filter's share. */
const LEVEL = 2;
/** Rows per strip at the least: a strip's deflate starts afresh (no window from the strip before), ~0.1 % per strip. */
const MIN_STRIP_ROWS = 64;

/** Writes a chunk's length, type and CRC around the `length` data bytes already placed at `at + 8`; returns its end. */
function sealChunk(out: Buffer, at: number, type: string, length: number): number {
  out.writeUInt32BE(length, at);
  out.write(type, at + 4, "latin1");
  out.writeUInt32BE(zlib.crc32(out.subarray(at + 4, at + 8 + length)) >>> 0, at + 8 + length);
  return at + 12 + length;
}

function deflateStrip(data: Uint8Array, last: boolean): Promise<Buffer> {
  const finishFlush = last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH;
  return new Promise((resolve, reject) => zlib.deflateRaw(data, { level: LEVEL, finishFlush }, (e, out) => (e ? reject(e) : resolve(out))));
}

/**
 * Filters rows [from, to) into `out` (each row a filter byte and its bytes): "Up" (the byte above subtracted), "Sub"
 * (the pixel to the left) on the first row. Up on a cut-out's rows came within 1-4 % of per-row adaptive filtering and
 * costs one subtraction a byte; Paeth saved ~3 % more for four times the work.
 */
function filterRows(rgba: Uint8Array, stride: number, from: number, to: number, out: Uint8Array): void {
  for (let y = from; y < to; y++) {
    const o = y * (stride + 1);
    const row = y * stride;
    if (y === 0) {
      out[o] = 1;
      for (let i = 0; i < stride; i++) out[o + 1 + i] = rgba[row + i] - (i >= 4 ? rgba[row + i - 4] : 0);
      continue;
    }
    out[o] = 2;
    const above = row - stride;
    for (let i = 0; i < stride; i++) out[o + 1 + i] = rgba[row + i] - rgba[above + i];
  }
}

/** An 8-bit RGBA PNG of `rgba` (width × height × 4 bytes, rows top to bottom, straight alpha). */
export async function encodeRgbaPng(rgba: Uint8Array, width: number, height: number, strips = 4): Promise<Buffer> {
  if (!(width > 0 && height > 0) || rgba.length !== width * height * 4) throw new Error(`expected ${width}x${height} RGBA pixels, got ${rgba.length} bytes`);
  const stride = width * 4;
  const filtered = new Uint8Array(height * (stride + 1));
  const count = Math.max(1, Math.min(strips, Math.floor(height / MIN_STRIP_ROWS)));
  const rows = Math.ceil(height / count);
  // Each strip is filtered and handed to the thread pool before the next is filtered, so filtering overlaps deflating.
  const parts: Promise<Buffer>[] = [];
  for (let from = 0; from < height; from += rows) {
    const to = Math.min(height, from + rows);
    filterRows(rgba, stride, from, to, filtered);
    parts.push(deflateStrip(filtered.subarray(from * (stride + 1), to * (stride + 1)), to === height));
  }
  // Adler-32 (the zlib stream's checksum) of all the filtered rows, while the strips deflate.
  const checksum = Bun.hash.adler32(filtered);
  const deflated = await Promise.all(parts);
  // One buffer for the whole file, each part written in place (joining 1-2 MB buffers twice took ~10 ms).
  const idatLength = 2 + deflated.reduce((n, d) => n + d.length, 0) + 4;
  const out = Buffer.allocUnsafe(SIGNATURE.length + 25 + 12 + idatLength + 12);
  out.set(SIGNATURE, 0);
  let at = SIGNATURE.length;
  out.writeUInt32BE(width, at + 8);
  out.writeUInt32BE(height, at + 12);
  // Bit depth 8, colour type 6 (RGBA), deflate, adaptive filtering (per-row filter bytes), no interlace.
  out.set([8, 6, 0, 0, 0], at + 16);
  at = sealChunk(out, at, "IHDR", 13);
  // zlib header 0x78 0x5e: 32 KB window, "fast" level (informative only), and a check that makes it divisible by 31.
  let pos = at + 8;
  out[pos++] = 0x78;
  out[pos++] = 0x5e;
  for (const d of deflated) {
    out.set(d, pos);
    pos += d.length;
  }
  out.writeUInt32BE(checksum, pos);
  at = sealChunk(out, at, "IDAT", idatLength);
  sealChunk(out, at, "IEND", 0);
  return out;
}
