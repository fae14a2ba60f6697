// The storage slot's conformance kit: declares the bun:test cases every storage plugin must pass (put/get/delete/url,
// overwrite, missing keys, key safety, large streamed bodies, serve() with ranges when the plugin has one, and named
// downloads when the plugin names them).
// A plugin author runs it from a test file: `storageConformance("mine", async () => { … return plugin after init })`.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attachment, downloadFileName, serveStored, type StoragePlugin } from "../../src/plugins";

export type StorageConformanceOptions = {
  /** Checks the URL url(key) gave, when its exact form is known (e.g. `{cdn_url}/{key}`); by default any absolute URL. */
  expectUrl?(url: string, key: string): void;
  /** Whether url(key) can be fetched straight away (local files need the service's /files route; S3 links can). */
  fetchable?: boolean;
  /** Whether the plugin has serve() (vitrin then serves {cdn_url} through it); its tests run only then. */
  serves?: boolean;
  /**
   * Whether url(key, { download }) gives a link whose answer names the download (optional in the contract): checked by
   * fetching the link when `fetchable`, else by vitrin's file route over serve() (`serves`).
   */
  namesDownloads?: boolean;
};

/** Keys the core never makes; a plugin must refuse to store them and find nothing under them. */
export const UNSAFE_KEYS = ["../x.png", "a/../x.png", "a/../../x.png", "a/./x.png", "/etc/passwd", "a//b.png", ".hidden", "a/b/", "", "a b.png", "a\\b.png"];

const bytesOf = (text: string) => new TextEncoder().encode(text);
const sha256 = (data: ArrayBuffer | Uint8Array) => createHash("sha256").update(new Uint8Array(data)).digest("hex");

/** Declares the storage contract's tests for the plugin `make` returns (already initialised, one fresh store per call). */
export function storageConformance(name: string, make: () => Promise<StoragePlugin>, options: StorageConformanceOptions = {}): void {
  describe(`storage conformance: ${name}`, () => {
    test("declares the storage slot", async () => {
      const storage = await make();
      expect(storage.slot).toBe("storage");
      expect(storage.name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
    });

    test("put then get returns the same bytes, size and content type", async () => {
      const storage = await make();
      const bytes = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
      await storage.put("products/p1/a.png", bytes, "image/png");
      const got = await storage.get("products/p1/a.png");
      expect(got).not.toBeNull();
      expect(got!.size).toBe(bytes.length);
      expect(got!.contentType).toBe("image/png");
      expect(new Uint8Array(await got!.body.arrayBuffer())).toEqual(bytes);

      await storage.put("videos/v1/video.mp4", bytesOf("not really a video"), "video/mp4");
      expect((await storage.get("videos/v1/video.mp4"))!.contentType).toBe("video/mp4");
    });

    test("put replaces what a key held", async () => {
      const storage = await make();
      await storage.put("k/x.txt", bytesOf("the first, longer version"), "text/plain; charset=utf-8");
      await storage.put("k/x.txt", bytesOf("second"), "text/plain; charset=utf-8");
      const got = await storage.get("k/x.txt");
      expect(got!.size).toBe(6);
      expect(await got!.body.text()).toBe("second");
    });

    test("a missing key is null", async () => {
      const storage = await make();
      expect(await storage.get("nope/x.png")).toBeNull();
    });

    test("delete removes the key; deleting a missing key, or the same key twice, is not an error", async () => {
      const storage = await make();
      await storage.put("d/x.png", new Uint8Array([1]), "image/png");
      await storage.delete("d/x.png");
      expect(await storage.get("d/x.png")).toBeNull();
      await storage.delete("d/x.png");
      await storage.delete("never/was.png");
    });

    test("url gives the key under the storage's base, and (where it can be fetched) serves the bytes", async () => {
      const storage = await make();
      const key = "products/p1/photo-abc.jpg";
      const bytes = new Uint8Array([255, 216, 255, 224, 9, 9]);
      await storage.put(key, bytes, "image/jpeg");
      const url = storage.url(key);
      expect(() => new URL(url)).not.toThrow();
      expect(new URL(url).pathname.endsWith(`/${key}`)).toBe(true);
      options.expectUrl?.(url, key);
      if (options.fetchable) {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("image/jpeg");
        expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
      }
    });

    keyConformance(make);
    downloadConformance(make, options);

    test("ready reports ok", async () => {
      const storage = await make();
      expect((await storage.ready?.()) ?? { ok: true }).toMatchObject({ ok: true });
    });

    test(options.serves ? "has serve(), as declared" : "has no serve(), as declared", async () => {
      expect(typeof (await make()).serve).toBe(options.serves ? "function" : "undefined");
    });

    if (options.serves) serveConformance(make);
  });
}

/** Keys: nested folders apart, large streamed bodies whole, and keys the core never makes refused. */
function keyConformance(make: () => Promise<StoragePlugin>): void {
  test("keys in nested folders are independent of each other", async () => {
    const storage = await make();
    await storage.put("products/p1/deep/er/x.jpg", bytesOf("x"), "image/jpeg");
    await storage.put("products/p1/deep/y.jpg", bytesOf("y"), "image/jpeg");
    await storage.put("products/p2/deep/er/x.jpg", bytesOf("other product"), "image/jpeg");
    expect(await (await storage.get("products/p1/deep/er/x.jpg"))!.body.text()).toBe("x");
    // A folder is not a key.
    expect(await storage.get("products/p1/deep")).toBeNull();
    await storage.delete("products/p1/deep/er/x.jpg");
    expect(await storage.get("products/p1/deep/er/x.jpg")).toBeNull();
    expect(await (await storage.get("products/p1/deep/y.jpg"))!.body.text()).toBe("y");
    expect(await (await storage.get("products/p2/deep/er/x.jpg"))!.body.text()).toBe("other product");
  });

  test("a 6 MB file given as Bun.file is stored whole (a rendered video is streamed, not held in memory)", async () => {
    const storage = await make();
    const size = 6 * 1024 * 1024 + 12_345;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 11)) & 0xff;
    const dir = mkdtempSync(join(tmpdir(), "vitrin-storage-kit-"));
    try {
      const path = join(dir, "render.mp4");
      await Bun.write(path, bytes);
      await storage.put("videos/v1/video-big.mp4", Bun.file(path), "video/mp4");
      const got = await storage.get("videos/v1/video-big.mp4");
      expect(got!.size).toBe(size);
      expect(got!.contentType).toBe("video/mp4");
      expect(sha256(await got!.body.arrayBuffer())).toBe(sha256(bytes));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("keys the core could not have made are refused, found empty, and deleted without effect", async () => {
    const storage = await make();
    await storage.put("x.png", bytesOf("kept"), "image/png");
    for (const key of UNSAFE_KEYS) {
      // Each check names the key, so a failure says which one got through.
      await expect(storage.put(key, new Uint8Array([1]), "image/png"), `put(${JSON.stringify(key)})`).rejects.toThrow("invalid storage key");
      expect(await storage.get(key), `get(${JSON.stringify(key)})`).toBeNull();
      await storage.delete(key);
    }
    // "a/../x.png" names x.png once resolved: deleting it must not have removed the real x.png.
    expect(await (await storage.get("x.png"))!.body.text()).toBe("kept");
  });
}

/** The answer a client gets for `url`: fetched from the plugin's own server, or from vitrin's file route over serve(). */
async function answerOf(storage: StoragePlugin, url: string, key: string, options: StorageConformanceOptions): Promise<Response> {
  if (options.fetchable) return fetch(url);
  const res = await serveStored(storage, key, new Request(url));
  if (!res) throw new Error(`nothing answers ${url}: declare the plugin fetchable or serving`);
  return res;
}

/** url(key, { download }): always a link to the key's bytes; named in its answer when the plugin says it names them. */
function downloadConformance(make: () => Promise<StoragePlugin>, options: StorageConformanceOptions): void {
  const key = "videos/v1/video-abc.mp4";
  const bytes = bytesOf("the video's bytes");
  // Unsafe for a file system, outside ASCII and not ending in the file's extension: the answer must make it safe.
  const asked = 'Kahve fincanı: "9/16"';

  test("url with a download name still gives a link to the key", async () => {
    const storage = await make();
    await storage.put(key, bytes, "video/mp4");
    const url = storage.url(key, { download: asked });
    expect(new URL(url).pathname.endsWith(`/${key}`)).toBe(true);
    if (!options.fetchable && !options.serves) return;
    const res = await answerOf(storage, url, key, options);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  if (!options.namesDownloads) return;
  test("a download name is in the link's answer (Content-Disposition: attachment), made safe; a plain link has none", async () => {
    const storage = await make();
    await storage.put(key, bytes, "video/mp4");
    const named = await answerOf(storage, storage.url(key, { download: asked }), key, options);
    expect(named.headers.get("content-disposition")).toBe(attachment(downloadFileName(asked, key)));
    expect((await answerOf(storage, storage.url(key), key, options)).headers.get("content-disposition")).toBeNull();
  });
}

/** serve() is optional; a plugin that has it answers {cdn_url} requests itself and must let videos be seeked. */
function serveConformance(make: () => Promise<StoragePlugin>): void {
  type Serving = StoragePlugin & Required<Pick<StoragePlugin, "serve">>;
  const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
  const key = "products/p1/v.mp4";
  const request = (headers: Record<string, string> = {}, method = "GET") => new Request(`http://cdn.test/files/${key}`, { method, headers });
  const served = async (): Promise<Serving> => {
    const storage = await make();
    await storage.put(key, bytes, "video/mp4");
    return storage as Serving;
  };

  test("serve answers with the bytes, content type and length", async () => {
    const storage = await served();
    const res = (await storage.serve(key, request()))!;
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("content-length")).toBe("100");
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    const head = (await storage.serve(key, request({}, "HEAD")))!;
    expect(head.status).toBe(200);
    // HEAD tells the real length (a client sizes its download by it), with no body.
    expect(head.headers.get("content-length")).toBe("100");
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const headRange = (await storage.serve(key, request({ range: "bytes=10-19" }, "HEAD")))!;
    expect(headRange.status).toBe(206);
    expect(headRange.headers.get("content-length")).toBe("10");
  });

  test("serve answers byte ranges, so videos can be seeked", async () => {
    const storage = await served();
    const res = (await storage.serve(key, request({ range: "bytes=10-19" })))!;
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 10-19/100");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.slice(10, 20));
    const tail = (await storage.serve(key, request({ range: "bytes=-5" })))!;
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(95));
    const beyond = (await storage.serve(key, request({ range: "bytes=200-300" })))!;
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe("bytes */100");
  });

  test("serve answers a matching If-None-Match with 304", async () => {
    const storage = await served();
    const etag = (await storage.serve(key, request()))!.headers.get("etag");
    expect(etag).toBeTruthy();
    expect((await storage.serve(key, request({ "if-none-match": etag! })))!.status).toBe(304);
  });

  test("serve finds nothing for a missing or unsafe key", async () => {
    const storage = await served();
    expect(await storage.serve("nope/x.mp4", request())).toBeNull();
    for (const unsafe of UNSAFE_KEYS) expect(await storage.serve(unsafe, request()), `serve(${JSON.stringify(unsafe)})`).toBeNull();
  });
}
