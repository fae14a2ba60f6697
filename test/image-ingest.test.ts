// Image ingest end to end against a real local image host: formats by magic bytes, caps, bombs, truncation, data: URLs.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { ApiError, MAX_IMAGE_BYTES } from "../src/kernel";
import { ingestImage, type IngestOptions } from "../src/products/image";

type Served = { body: Uint8Array | string; type: string; chunked?: boolean; delayMs?: number; status?: number; location?: string };

const hosts: { stop(): void }[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) h.stop();
});

/** A real HTTP image host on loopback; `chunked` files are streamed without a Content-Length. */
function imageHost(files: Record<string, Served>) {
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      const file = files[path];
      if (!file) return new Response("not found", { status: 404 });
      if (file.delayMs) await Bun.sleep(file.delayMs);
      const headers: Record<string, string> = { "content-type": file.type };
      if (file.location) headers.location = file.location;
      const bytes = typeof file.body === "string" ? new TextEncoder().encode(file.body) : file.body;
      if (!file.chunked) return new Response(bytes, { status: file.status ?? 200, headers });
      let offset = 0;
      const stream = new ReadableStream({
        pull(c) {
          if (offset >= bytes.length) return c.close();
          c.enqueue(bytes.slice(offset, offset + 65536));
          offset += 65536;
        },
      });
      return new Response(stream, { status: file.status ?? 200, headers });
    },
  });
  hosts.push({ stop: () => void server.stop(true) });
  return { hits, url: (path: string) => `http://127.0.0.1:${server.port}${path}` };
}

const open: IngestOptions = { allowPrivateNetworks: true, timeoutMs: 5_000 };

async function picture(format: "jpeg" | "png" | "webp" | "gif" | "tiff", width = 64, height = 48): Promise<Uint8Array> {
  const img = sharp({ create: { width, height, channels: 3, background: "#e8e4dc" } }).composite([
    { input: { create: { width: Math.ceil(width / 2), height: Math.ceil(height / 2), channels: 3, background: "#c0392b" } }, left: 4, top: 4 },
  ]);
  return new Uint8Array(await img.toFormat(format).toBuffer());
}

/** A PNG that declares 20000×20000 1-bit pixels and compresses to about 50 KB: cheap to send, 1.2 GB to decode. */
function bombPng(width = 20_000, height = 20_000): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "latin1");
    out.set(data, 8);
    out.writeUInt32BE(Bun.hash.crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height); // filter byte 0 and black pixels on every row
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", ihdr),
      chunk("IDAT", deflateSync(rows, { level: 9 })),
      chunk("IEND", new Uint8Array(0)),
    ]),
  );
}

/** A real PNG over 5 MiB: random pixels stored without compression. */
async function bigPng(): Promise<Uint8Array> {
  const side = 1400;
  const pixels = new Uint8Array(side * side * 3);
  for (let o = 0; o < pixels.length; o += 65536) crypto.getRandomValues(pixels.subarray(o, o + 65536));
  const png = await sharp(pixels, { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
  return new Uint8Array(png);
}

async function refusal(source: string, opts: IngestOptions = open): Promise<ApiError> {
  const e = await ingestImage(source, opts).then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(e)}`);
  return e;
}

const UNSUPPORTED = {
  error: "Unsupported image format",
  code: "unsupported_image_format",
  message: "The image must be a JPG, PNG or WebP file.",
  allowed: ["image/jpeg", "image/png", "image/webp"],
  // The image's field, named in a 413 and a 415 as in a 422.
  field: "image_url",
};
const tooLarge = (max = MAX_IMAGE_BYTES) => ({ error: "File too large", code: "file_too_large", message: `The image is larger than ${max} bytes.`, max_size: max, field: "image_url" });
const invalid = (message: string, field = "image_url") => ({
  error: "Validation failed",
  code: "validation_failed",
  message: `${field}: ${message}`,
  details: [{ field, message }],
});
const CORRUPT = "is not a readable image: the file is truncated or corrupt";

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const dataUrl = (type: string, b: Uint8Array) => `data:${type};base64,${Buffer.from(b).toString("base64")}`;

let jpeg: Uint8Array, png: Uint8Array, webp: Uint8Array, big: Uint8Array;
beforeAll(async () => {
  [jpeg, png, webp, big] = await Promise.all([picture("jpeg", 64, 48), picture("png", 30, 20), picture("webp", 50, 40), bigPng()]);
});

describe("accepted images", () => {
  test("JPEG, PNG and WebP over HTTP, typed by their bytes", async () => {
    const host = imageHost({
      "/a.jpg": { body: jpeg, type: "image/jpeg" },
      "/b.png": { body: png, type: "image/png", chunked: true },
      "/c.webp": { body: webp, type: "image/webp" },
      // The header and the name both lie; the bytes decide.
      "/d.jpg": { body: png, type: "text/plain" },
    });
    expect(await ingestImage(host.url("/a.jpg"), open)).toEqual({
      bytes: jpeg,
      contentType: "image/jpeg",
      ext: "jpg",
      width: 64,
      height: 48,
      size: jpeg.length,
      sha256: sha256(jpeg),
    });
    expect(await ingestImage(host.url("/b.png"), open)).toMatchObject({ contentType: "image/png", ext: "png", width: 30, height: 20, size: png.length, sha256: sha256(png) });
    expect(await ingestImage(host.url("/c.webp"), open)).toMatchObject({ contentType: "image/webp", ext: "webp", width: 50, height: 40 });
    expect(await ingestImage(host.url("/d.jpg"), open)).toMatchObject({ contentType: "image/png", ext: "png" });
  });

  test("width and height are the displayed ones: EXIF orientation 6 swaps them", async () => {
    const rotated = new Uint8Array(await sharp(await picture("jpeg", 400, 300)).jpeg().withMetadata({ orientation: 6 }).toBuffer());
    const got = await ingestImage(dataUrl("image/jpeg", rotated), open);
    expect([got.width, got.height]).toEqual([300, 400]);
  });

  test("redirects are followed", async () => {
    const host = imageHost({ "/old": { body: "", type: "text/plain", status: 302, location: "/new.png" }, "/new.png": { body: png, type: "image/png" } });
    expect((await ingestImage(host.url("/old"), open)).sha256).toBe(sha256(png));
    expect(host.hits).toEqual(["/old", "/new.png"]);
  });

  test("data: URLs, base64 and percent-encoded", async () => {
    expect(await ingestImage(dataUrl("image/png", png), open)).toMatchObject({ contentType: "image/png", width: 30, height: 20, sha256: sha256(png) });
    const percent = `data:image/webp,${[...webp].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")}`;
    expect(await ingestImage(percent, open)).toMatchObject({ contentType: "image/webp", sha256: sha256(webp) });
    // The declared type of a data: URL is no more trusted than a Content-Type header.
    expect(await ingestImage(dataUrl("image/gif", jpeg), open)).toMatchObject({ contentType: "image/jpeg" });
  });
});

describe("415: not JPG, PNG or WebP by magic bytes", () => {
  test("GIF, TIFF, BMP, SVG and text served as image/png", async () => {
    const bmp = new Uint8Array(58);
    bmp.set([0x42, 0x4d]);
    const host = imageHost({
      "/x.png": { body: await picture("gif"), type: "image/png" },
      "/y.png": { body: await picture("tiff"), type: "image/png" },
      "/z.png": { body: bmp, type: "image/png" },
      "/s.png": { body: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>', type: "image/png" },
      "/notes.png": { body: "just text, not an image", type: "image/png" },
    });
    for (const path of ["/x.png", "/y.png", "/z.png", "/s.png", "/notes.png"]) {
      const e = await refusal(host.url(path));
      expect([path, e.status, e.toJSON()]).toEqual([path, 415, UNSUPPORTED]);
    }
    const e = await refusal(dataUrl("image/png", await picture("gif")));
    expect([e.status, e.toJSON()]).toEqual([415, UNSUPPORTED]);
  });
});

describe("413: over the byte cap", () => {
  test("a real PNG over 5 MiB, with and without Content-Length, and as a data: URL", async () => {
    expect(big.length).toBeGreaterThan(MAX_IMAGE_BYTES);
    const host = imageHost({ "/big.png": { body: big, type: "image/png" }, "/big-chunked.png": { body: big, type: "image/png", chunked: true } });
    for (const path of ["/big.png", "/big-chunked.png"]) {
      const e = await refusal(host.url(path));
      expect([path, e.status, e.toJSON()]).toEqual([path, 413, tooLarge()]);
    }
    const e = await refusal(dataUrl("image/png", big));
    expect([e.status, e.toJSON()]).toEqual([413, tooLarge()]);
  });

  test("the same image passes a larger cap, and a smaller cap is reported as max_size", async () => {
    expect((await ingestImage(dataUrl("image/png", big), { ...open, maxBytes: 8_000_000 })).width).toBe(1400);
    const e = await refusal(dataUrl("image/jpeg", jpeg), { ...open, maxBytes: 100 });
    expect([e.status, e.toJSON()]).toEqual([413, tooLarge(100)]);
  });
});

describe("422: everything else", () => {
  test("a decompression bomb is refused by its declared size, before decoding", async () => {
    const bomb = bombPng();
    expect(bomb.length).toBeLessThan(100_000);
    const host = imageHost({ "/bomb.png": { body: bomb, type: "image/png" } });
    const started = performance.now();
    const e = await refusal(host.url("/bomb.png"));
    expect([e.status, e.toJSON()]).toEqual([422, invalid("is 20000×20000 pixels; an image can have at most 40000000 pixels")]);
    expect(performance.now() - started).toBeLessThan(2000);
    const small = await refusal(dataUrl("image/jpeg", await picture("jpeg", 400, 300)), { ...open, maxPixels: 100_000 });
    expect(small.toJSON()).toEqual(invalid("is 400×300 pixels; an image can have at most 100000 pixels"));
  });

  test("truncated JPEG and PNG files fail the full decode", async () => {
    const photo = await picture("jpeg", 400, 300);
    const host = imageHost({
      "/cut.jpg": { body: photo.subarray(0, Math.floor(photo.length * 0.7)), type: "image/jpeg" },
      "/cut.png": { body: (await picture("png", 400, 300)).subarray(0, 200), type: "image/png" },
      "/cut.webp": { body: webp.subarray(0, webp.length - 20), type: "image/webp" },
    });
    for (const path of ["/cut.jpg", "/cut.png", "/cut.webp"]) {
      const e = await refusal(host.url(path));
      expect([path, e.status, e.toJSON()]).toEqual([path, 422, invalid(CORRUPT)]);
    }
    // The header of the cut JPEG still reads fine: only decoding every pixel shows the damage.
    expect((await sharp(photo.subarray(0, Math.floor(photo.length * 0.7))).metadata()).width).toBe(400);
  });

  test("right magic bytes with garbage behind them", async () => {
    const garbage = (magic: number[]) => {
      const b = new Uint8Array(300).fill(0x41);
      b.set(magic);
      return b;
    };
    const fakes = [
      garbage([0xff, 0xd8, 0xff]),
      garbage([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      garbage([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50]),
    ];
    for (const fake of fakes) {
      const e = await refusal(dataUrl("image/png", fake));
      expect([e.status, e.toJSON()]).toEqual([422, invalid(CORRUPT)]);
    }
  });

  test("upstream failures and unusable URLs, each with its own reason", async () => {
    const host = imageHost({
      "/empty.png": { body: new Uint8Array(0), type: "image/png" },
      "/slow.png": { body: png, type: "image/png", delayMs: 2_000 },
      "/gone.png": { body: "gone", type: "text/plain", status: 410 },
    });
    const cases: [string, string, IngestOptions?][] = [
      [host.url("/missing.png"), "could not be fetched: the server answered HTTP 404"],
      [host.url("/gone.png"), "could not be fetched: the server answered HTTP 410"],
      [host.url("/empty.png"), "points to an empty file"],
      [host.url("/slow.png"), "could not be fetched within 0.2 s", { ...open, timeoutMs: 200 }],
      ["ftp://127.0.0.1/a.png", "must be an http or https URL, or a data: URL"],
      ["file:///etc/passwd", "must be an http or https URL, or a data: URL"],
      ["not a url", "is not a valid URL"],
      ["data:image/png;base64,@@@", "is not a valid data: URL (expected data:image/png;base64,…)"],
      ["http://nowhere.example/a.png", "has a host name that could not be resolved", { ...open, resolve: async () => [] }],
    ];
    for (const [source, message, opts] of cases) {
      const e = await refusal(source, opts);
      expect([source, e.status, e.toJSON()]).toEqual([source, 422, invalid(message)]);
    }
  });

  test("a private address is refused without contact when private networks are not allowed", async () => {
    const host = imageHost({ "/a.jpg": { body: jpeg, type: "image/jpeg" } });
    const strict: IngestOptions = { allowPrivateNetworks: false, resolve: async () => ["127.0.0.1"] };
    const blocked = "points to a private, local or reserved network address, which is not allowed (the server's operator can allow such addresses: VITRIN_ALLOW_PRIVATE_NETWORKS)";
    for (const source of [host.url("/a.jpg"), host.url("/a.jpg").replace("127.0.0.1", "cdn.example"), host.url("/a.jpg").replace("127.0.0.1", "2130706433")]) {
      const e = await refusal(source, strict);
      expect([source, e.status, e.toJSON()]).toEqual([source, 422, invalid(blocked)]);
    }
    expect(host.hits).toHaveLength(0);
  });

  test("the field name is the caller's", async () => {
    const e = await refusal("ftp://x/a.png", { ...open, field: "image" });
    expect(e.toJSON()).toEqual(invalid("must be an http or https URL, or a data: URL", "image"));
  });
});
