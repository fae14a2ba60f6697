// Product image ingest: fetches an image URL (or decodes a data: URL) and accepts only whole, sane JPG, PNG or WebP files.

import { createHash } from "node:crypto";
import { NativeLoadError, sharp } from "../native";
import type { Metadata } from "sharp";
import { errors, isApiError, MAX_IMAGE_BYTES, type ApiError } from "../kernel";
import { decodeDataUrl, describeOutboundError, isOutboundError, outboundFetch, type OutboundError } from "../net";

/** Decoded-size cap: a tiny PNG can declare 20000×20000 pixels and cost gigabytes to decode (a decompression bomb). */
export const MAX_IMAGE_PIXELS = 40_000_000;
const DEFAULT_TIMEOUT_MS = 10_000;

export type IngestedImage = {
  bytes: Uint8Array;
  contentType: "image/jpeg" | "image/png" | "image/webp";
  ext: "jpg" | "png" | "webp";
  width: number;
  height: number;
  size: number;
  sha256: string;
};

export type IngestOptions = {
  allowPrivateNetworks: boolean;
  /** Default MAX_IMAGE_BYTES (5 MiB). */
  maxBytes?: number;
  /** Default MAX_IMAGE_PIXELS. */
  maxPixels?: number;
  timeoutMs?: number;
  resolve?: (hostname: string) => Promise<string[]>;
  /** The request field named in 422 answers (default "image_url"). */
  field?: string;
};

type Format = "jpeg" | "png" | "webp";

const FORMATS: Record<Format, { contentType: IngestedImage["contentType"]; ext: IngestedImage["ext"] }> = {
  jpeg: { contentType: "image/jpeg", ext: "jpg" },
  png: { contentType: "image/png", ext: "png" },
  webp: { contentType: "image/webp", ext: "webp" },
};

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The format by magic bytes alone: Content-Type headers and file names are whatever the other side says. */
export function sniffImageFormat(bytes: Uint8Array): Format | null {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return "png";
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
  return null;
}

function fetchFailure(e: OutboundError, field: string, maxBytes: number, timeoutMs: number, dataUrl: boolean): ApiError {
  if (e.code === "too_large") return errors.fileTooLarge(maxBytes, undefined, field);
  if (dataUrl) return errors.invalidField(field, "is not a valid data: URL (expected data:image/png;base64,…)");
  // An image may also come inline, so the scheme refusal names that way too (webhook URLs share the shorter reason).
  if (e.code === "scheme") return errors.invalidField(field, "must be an http or https URL, or a data: URL");
  const err = errors.invalidField(field, describeOutboundError(e, timeoutMs, "image"));
  // A host that did not answer in time, could not be reached or resolved may well be there on a retry.
  return e.code === "timeout" || e.code === "connect" || e.code === "dns" ? err.passing() : err;
}

async function download(source: string | Uint8Array, opts: IngestOptions, field: string, maxBytes: number): Promise<Uint8Array> {
  // An uploaded file (multipart/form-data) is here already; only its size is left to check.
  if (typeof source !== "string") {
    if (source.length > maxBytes) throw errors.fileTooLarge(maxBytes, undefined, field);
    return source;
  }
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const dataUrl = /^\s*data:/i.test(source);
  try {
    if (dataUrl) return decodeDataUrl(source, { maxBytes, overflow: "error" }).bytes;
    const res = await outboundFetch(source, {
      allowPrivateNetworks: opts.allowPrivateNetworks,
      resolve: opts.resolve,
      timeoutMs,
      maxBytes,
      overflow: "error",
      headers: { accept: "image/jpeg, image/png, image/webp;q=0.9, */*;q=0.1", "user-agent": "vitrin-image-fetch/1" },
    });
    if (res.status < 200 || res.status > 299) {
      const err = errors.invalidField(field, `could not be fetched: the server answered HTTP ${res.status}`);
      // A busy or failing image host (408, 429, 5xx) may answer later; a 404 or 403 is the URL's own fault.
      throw res.status === 408 || res.status === 429 || res.status >= 500 ? err.passing() : err;
    }
    return res.body;
  } catch (e) {
    if (isApiError(e)) throw e;
    if (isOutboundError(e)) throw fetchFailure(e, field, maxBytes, timeoutMs, dataUrl);
    throw errors.invalidField(field, "could not be fetched");
  }
}

function isPixelLimit(e: unknown): boolean {
  return e instanceof Error && /pixel limit/i.test(e.message);
}

/**
 * Decodes every pixel, not just the header: a truncated or corrupt file only fails once its data is read. sharp's
 * failOn "error" makes libvips abort on truncation and decode errors (its default "warning" would also refuse files
 * with harmless quirks, such as stray bytes between JPEG markers), and limitInputPixels stops a bomb before its
 * pixel buffer is allocated. stats() walks the whole image without keeping a decoded copy.
 */
async function decode(bytes: Uint8Array, format: Format, field: string, maxPixels: number) {
  const options = { failOn: "error", limitInputPixels: maxPixels, sequentialRead: true } as const;
  const tooManyPixels = (w: number, h: number) =>
    errors.invalidField(field, `is ${w}×${h} pixels; an image can have at most ${maxPixels} pixels`);
  const corrupt = () => errors.invalidField(field, "is not a readable image: the file is truncated or corrupt");
  let meta: Metadata;
  try {
    // Only the header is read here, so the pixel limit is lifted to learn the declared size and name it in the error.
    meta = await sharp(bytes, { ...options, limitInputPixels: false }).metadata();
  } catch (e) {
    // libvips missing is this machine's fault: a 500 with the cause in the log, not a photo called corrupt.
    if (e instanceof NativeLoadError) throw e;
    throw corrupt();
  }
  if (meta.format !== format || !meta.width || !meta.height) throw corrupt();
  if (meta.width * meta.height > maxPixels) throw tooManyPixels(meta.width, meta.height);
  try {
    await sharp(bytes, options).stats();
  } catch (e) {
    throw isPixelLimit(e) ? tooManyPixels(meta.width, meta.height) : corrupt();
  }
  // EXIF orientation 5–8 turns the picture a quarter: report the size a viewer shows.
  const width = meta.autoOrient?.width || meta.width;
  const height = meta.autoOrient?.height || meta.height;
  return { width, height };
}

/**
 * Turns a client's image_url (http(s) or data:), or the bytes of an uploaded file, into a vetted image, or throws the catalogue's error:
 * 413 over the byte cap, 415 for anything that is not JPG/PNG/WebP by its bytes, 422 for everything else.
 */
export async function ingestImage(source: string | Uint8Array, opts: IngestOptions): Promise<IngestedImage> {
  const field = opts.field ?? "image_url";
  const maxBytes = opts.maxBytes ?? MAX_IMAGE_BYTES;
  const maxPixels = opts.maxPixels ?? MAX_IMAGE_PIXELS;
  try {
    const bytes = await download(source, opts, field, maxBytes);
    if (bytes.length === 0) throw errors.invalidField(field, "points to an empty file");
    const format = sniffImageFormat(bytes);
    if (!format) throw errors.unsupportedImage(field);
    const { width, height } = await decode(bytes, format, field, maxPixels);
    return {
      bytes,
      ...FORMATS[format],
      width,
      height,
      size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
    };
  } catch (e) {
    if (isApiError(e)) throw e;
    // Whatever slipped past the mapping above is still the client's input failing, never a 500.
    throw errors.invalidField(field, "could not be processed as an image");
  }
}
