// The local file route's HTTP behaviour (the storage contract itself is checked by test/conformance/storage.test.ts).
import { afterEach, describe, expect, test } from "bun:test";
import { startService, type TestService } from "./helpers";

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
