// Storage conformance: one suite run against every storage plugin, plus the local file route's HTTP behaviour.
import { afterEach, describe, expect, test } from "bun:test";
import { createLocalStorage } from "../plugins/storage-local";
import type { StoragePlugin } from "../src/plugins";
import { startService, tempDir, type TestService } from "./helpers";

const implementations: { name: string; make: () => Promise<StoragePlugin> }[] = [
  {
    name: "local",
    make: async () => {
      const s = createLocalStorage(tempDir(), "http://cdn.test/files");
      await s.init?.();
      return s;
    },
  },
];

for (const impl of implementations) {
  describe(`storage conformance: ${impl.name}`, () => {
    test("put then get returns the same bytes and type", async () => {
      const s = await impl.make();
      const bytes = new Uint8Array([1, 2, 3, 4, 5]);
      await s.put("products/p1/a.png", bytes, "image/png");
      const got = await s.get("products/p1/a.png");
      expect(got).not.toBeNull();
      expect(got!.size).toBe(5);
      expect(got!.contentType).toBe("image/png");
      expect(new Uint8Array(await got!.body.arrayBuffer())).toEqual(bytes);
    });

    test("put replaces an existing key", async () => {
      const s = await impl.make();
      await s.put("k/x.txt", new TextEncoder().encode("one"), "text/plain");
      await s.put("k/x.txt", new TextEncoder().encode("two"), "text/plain");
      expect(await (await s.get("k/x.txt"))!.body.text()).toBe("two");
    });

    test("a missing key is null and deleting it is not an error", async () => {
      const s = await impl.make();
      expect(await s.get("nope/x.png")).toBeNull();
      await s.delete("nope/x.png");
    });

    test("delete removes the key", async () => {
      const s = await impl.make();
      await s.put("d/x.png", new Uint8Array([1]), "image/png");
      await s.delete("d/x.png");
      expect(await s.get("d/x.png")).toBeNull();
    });

    test("url places the key under the configured base", async () => {
      const s = await impl.make();
      expect(s.url("products/p1/a.png")).toBe("http://cdn.test/files/products/p1/a.png");
    });

    test("keys that could escape the store are refused", async () => {
      const s = await impl.make();
      for (const key of ["../x.png", "a/../../x.png", "/etc/passwd", "a//b.png", ".hidden"]) {
        await expect(s.put(key, new Uint8Array([1]), "image/png")).rejects.toThrow();
        expect(await s.get(key)).toBeNull();
      }
    });

    test("ready reports ok", async () => {
      const s = await impl.make();
      expect((await s.ready?.()) ?? { ok: true }).toMatchObject({ ok: true });
    });
  });
}

describe("file route (local storage)", () => {
  let t: TestService;
  afterEach(async () => {
    await t?.close();
  });

  async function withFile(bytes: Uint8Array, key = "products/p1/v.mp4") {
    // The file route serves local storage only (S3 links point at the bucket), so this always runs on local disk.
    t = await startService({ VITRIN_STORAGE: "local" });
    await t.service.plugins.storage.put(key, bytes, "video/mp4");
    return `/files/${key}`;
  }

  test("serves with content type, immutable caching and an ETag", async () => {
    const path = await withFile(new Uint8Array(100).fill(7));
    const res = await t.call("GET", path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(res.headers.get("content-length")).toBe("100");
    const etag = res.headers.get("etag")!;
    expect((await t.call("GET", path, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  test("answers byte ranges, so videos can be seeked", async () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
    const path = await withFile(bytes);
    const res = await t.call("GET", path, { headers: { range: "bytes=10-19" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 10-19/100");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.slice(10, 20));
    expect((await t.call("GET", path, { headers: { range: "bytes=200-300" } })).status).toBe(416);
  });

  test("path traversal through the route finds nothing", async () => {
    await withFile(new Uint8Array([1]));
    for (const path of ["/files/..%2fvitrin.db", "/files/%2e%2e/vitrin.db", "/files/products/..%2F..%2Fvitrin.db"]) {
      const res = await t.call("GET", path);
      expect(res.status).toBe(404);
    }
  });
});
