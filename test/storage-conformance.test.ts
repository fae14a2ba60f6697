// The same storage behaviours checked against every storage implementation: local disk, and S3 (presigned and public links) on a real s3rver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalStorage } from "../plugins/storage-local";
import { createS3Storage } from "../plugins/storage-s3";
import type { StoragePlugin } from "../src/plugins";
import { startS3Server, type S3Server } from "./support/s3";

// Not test/helpers' tempDir: these tests need no service, so they do not load one.
const tempDir = () => mkdtempSync(join(tmpdir(), "vitrin-storage-"));

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
});

type Implementation = {
  make(): Promise<StoragePlugin>;
  /** The URL url(key) must give, or a check of its shape when it cannot be known in advance (presigned). */
  expectUrl(url: string, key: string): void;
  /** Whether url(key) can be fetched straight away (local files need the service's /files route). */
  fetchable: boolean;
};

const implementations: [string, Implementation][] = [
  [
    "local",
    {
      async make() {
        const storage = createLocalStorage(tempDir(), "http://cdn.test/files");
        await storage.init?.();
        return storage;
      },
      expectUrl: (url, key) => expect(url).toBe(`http://cdn.test/files/${key}`),
      fetchable: false,
    },
  ],
  [
    "s3 with presigned links",
    {
      async make() {
        const storage = createS3Storage(s3.options(await s3.newBucket()));
        await storage.init?.();
        return storage;
      },
      expectUrl(url, key) {
        const u = new URL(url);
        expect(`${u.origin}${u.pathname}`).toMatch(new RegExp(`^${s3.endpoint}/bucket-[0-9-]+/${key}$`));
        expect(u.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
        expect(u.searchParams.get("X-Amz-Expires")).toBe("3600");
      },
      fetchable: true,
    },
  ],
  [
    "s3 with public links",
    {
      async make() {
        const bucket = await s3.newBucket();
        // s3rver serves unsigned GETs, so it stands in for a publicly readable bucket (or a CDN in front of one).
        const storage = createS3Storage(s3.options(bucket, { publicUrl: `${s3.endpoint}/${bucket}` }));
        await storage.init?.();
        return storage;
      },
      expectUrl: (url, key) => expect(url).toMatch(new RegExp(`^${s3.endpoint}/bucket-[0-9-]+/${key}$`)),
      fetchable: true,
    },
  ],
];

const bytesOf = (text: string) => new TextEncoder().encode(text);
const sha256 = (data: ArrayBuffer | Uint8Array) => createHash("sha256").update(new Uint8Array(data)).digest("hex");

describe.each(implementations)("storage conformance: %s", (_name, impl) => {
  test("put then get returns the same bytes, size and content type", async () => {
    const storage = await impl.make();
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
    const storage = await impl.make();
    await storage.put("k/x.txt", bytesOf("the first, longer version"), "text/plain; charset=utf-8");
    await storage.put("k/x.txt", bytesOf("second"), "text/plain; charset=utf-8");
    const got = await storage.get("k/x.txt");
    expect(got!.size).toBe(6);
    expect(await got!.body.text()).toBe("second");
  });

  test("a missing key is null", async () => {
    const storage = await impl.make();
    expect(await storage.get("nope/x.png")).toBeNull();
  });

  test("delete removes the key; deleting a missing key, or the same key twice, is not an error", async () => {
    const storage = await impl.make();
    await storage.put("d/x.png", new Uint8Array([1]), "image/png");
    await storage.delete("d/x.png");
    expect(await storage.get("d/x.png")).toBeNull();
    await storage.delete("d/x.png");
    await storage.delete("never/was.png");
  });

  test("url gives the key under the storage's base, and (where it can be fetched) serves the bytes", async () => {
    const storage = await impl.make();
    const key = "products/p1/photo-abc.jpg";
    const bytes = new Uint8Array([255, 216, 255, 224, 9, 9]);
    await storage.put(key, bytes, "image/jpeg");
    const url = storage.url(key);
    impl.expectUrl(url, key);
    if (impl.fetchable) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/jpeg");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    }
  });

  test("keys in nested folders are independent of each other", async () => {
    const storage = await impl.make();
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

  test("a 6 MB file given as Bun.file is stored whole (streamed from disk, multipart on S3)", async () => {
    const storage = await impl.make();
    const size = 6 * 1024 * 1024 + 12_345;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 11)) & 0xff;
    const path = join(tempDir(), "render.mp4");
    await Bun.write(path, bytes);
    await storage.put("videos/v1/video-big.mp4", Bun.file(path), "video/mp4");
    const got = await storage.get("videos/v1/video-big.mp4");
    expect(got!.size).toBe(size);
    expect(got!.contentType).toBe("video/mp4");
    expect(sha256(await got!.body.arrayBuffer())).toBe(sha256(bytes));
  });

  test("keys the core could not have made are refused", async () => {
    const storage = await impl.make();
    for (const key of ["../x.png", "a/../../x.png", "a/./x.png", "/etc/passwd", "a//b.png", ".hidden", "a/b/", "", "a b.png", "a\\b.png"]) {
      await expect(storage.put(key, new Uint8Array([1]), "image/png")).rejects.toThrow("invalid storage key");
      expect(await storage.get(key)).toBeNull();
      await storage.delete(key);
    }
  });

  test("ready reports ok", async () => {
    const storage = await impl.make();
    expect((await storage.ready?.()) ?? { ok: true }).toEqual({ ok: true });
  });
});
