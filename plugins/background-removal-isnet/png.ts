// The cut-out's PNG encoder: RGBA rows filtered with "Up" and deflated by libdeflate (Bun's deflateSync).
//
// Why not sharp's PNG writer (libspng): it tries all five filters on every row and deflates with zlib, ~60-75 ms for a
// 1024 px cut-out on a 2-core EPYC; this writes a file of about the same size (within 1 %) in ~20-25 ms
// (docs/benchmarks.md, bench:dekupe). Deflating strips on zlib's thread pool (level 2, joined with sync flushes) was
// tried and measured slower and larger: the pool's work did not overlap this thread's. The format is small and fixed
// (RFC 2083): signature, IHDR, one IDAT holding the zlib stream (header, raw deflate, Adler-32), IEND, each chunk with
// its CRC.
import zlib from "node:zlib";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** libdeflate's level 1: on Up-filtered cut-outs as small as zlib's level 2 (~30 % smaller than zlib's 1), and faster. */
const LEVEL = 1;

/** Writes a chunk's length, type and CRC around the `length` data bytes already placed at `at + 8`; returns its end. */
function sealChunk(out: Buffer, at: number, type: string, length: number): number {
  out.writeUInt32BE(length, at);
  out.write(type, at + 4, "latin1");
  out.writeUInt32BE(zlib.crc32(out.subarray(at + 4, at + 8 + length)) >>> 0, at + 8 + length);
  return at + 12 + length;
}

/**
 * The rows filtered into `out` (each row a filter byte and its bytes): "Up" (the byte above subtracted), "Sub" (the
 * pixel to the left) on the first row. Up on a cut-out's rows came within 1-4 % of per-row adaptive filtering and
 * costs one subtraction a byte; Paeth saved ~3 % more for four times the work.
 */
function filterRows(rgba: Uint8Array, stride: number, height: number, out: Uint8Array): void {
  out[0] = 1;
  for (let i = 0; i < stride; i++) out[1 + i] = rgba[i] - (i >= 4 ? rgba[i - 4] : 0);
  for (let y = 1; y < height; y++) {
    const o = y * (stride + 1);
    const row = y * stride;
    out[o] = 2;
    const above = row - stride;
    for (let i = 0; i < stride; i++) out[o + 1 + i] = rgba[row + i] - rgba[above + i];
  }
}

/** An 8-bit RGBA PNG of `rgba` (width × height × 4 bytes, rows top to bottom, straight alpha). */
export async function encodeRgbaPng(rgba: Uint8Array, width: number, height: number): Promise<Buffer> {
  if (!(width > 0 && height > 0) || rgba.length !== width * height * 4) throw new Error(`expected ${width}x${height} RGBA pixels, got ${rgba.length} bytes`);
  const filtered = new Uint8Array(height * (width * 4 + 1));
  filterRows(rgba, width * 4, height, filtered);
  const deflated = Bun.deflateSync(filtered, { library: "libdeflate", level: LEVEL });
  // Adler-32: the zlib stream's checksum of the uncompressed (filtered) bytes.
  const checksum = Bun.hash.adler32(filtered);
  // One buffer for the whole file, each part written in place (joining 1-2 MB buffers took ~5 ms each).
  const idatLength = 2 + deflated.length + 4;
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
  out.set(deflated, pos);
  pos += deflated.length;
  out.writeUInt32BE(checksum, pos);
  at = sealChunk(out, at, "IDAT", idatLength);
  sealChunk(out, at, "IEND", 0);
  return out;
}
