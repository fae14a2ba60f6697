// Stored files as clients fetch them by the URLs the API gives out: HEAD tells the real Content-Length, Range gets 206
// with Content-Range (416 when no byte of it exists), Accept-Ranges says so. Runs on local disk (vitrin's /files route)
// and, with VITRIN_TEST_STORAGE=s3, on the bucket's own links.
import { afterEach, describe, expect, test } from "bun:test";
import { fetchStored, onS3, productPhoto, startService, storedBytes, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

/** A product's stored image: its URL as the API gives it and its bytes. */
async function storedImage() {
  t = await startService();
  const { token } = await t.newAccount();
  const image = `data:image/png;base64,${Buffer.from(await productPhoto("png", 320, 240)).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false } });
  const url = product.body.image_url as string;
  return { url, bytes: (await storedBytes(t, url))! };
}

describe(`stored files (${onS3 ? "S3" : "local disk"})`, () => {
  test("HEAD answers the real Content-Length and no body", async () => {
    const { url, bytes } = await storedImage();
    expect(bytes.length).toBeGreaterThan(100);
    const res = await fetchStored(t, url, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  test("a Range gets 206 with Content-Range and exactly those bytes", async () => {
    const { url, bytes } = await storedImage();
    const res = await fetchStored(t, url, { headers: { range: "bytes=10-19" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes 10-19/${bytes.length}`);
    expect(res.headers.get("content-length")).toBe("10");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.slice(10, 20));
  });

  test("open-ended ranges, and an end past the file cut to its last byte", async () => {
    const { url, bytes } = await storedImage();
    const n = bytes.length;
    const tail = await fetchStored(t, url, { headers: { range: `bytes=${n - 7}-` } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get("content-range")).toBe(`bytes ${n - 7}-${n - 1}/${n}`);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(n - 7));
    const over = await fetchStored(t, url, { headers: { range: `bytes=0-${n + 1000}` } });
    expect(over.status).toBe(206);
    expect(over.headers.get("content-range")).toBe(`bytes 0-${n - 1}/${n}`);
  });

  test("a range starting past the end is 416", async () => {
    const { url, bytes } = await storedImage();
    const res = await fetchStored(t, url, { headers: { range: `bytes=${bytes.length}-` } });
    expect(res.status).toBe(416);
  });

  test("HEAD with a Range tells the range's length", async () => {
    const { url, bytes } = await storedImage();
    const res = await fetchStored(t, url, { method: "HEAD", headers: { range: "bytes=0-99" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-length")).toBe("100");
    expect(res.headers.get("content-range")).toBe(`bytes 0-99/${bytes.length}`);
  });

});

// What vitrin's own file route adds; on S3 the bucket answers these (s3rver, its stand-in here, gets suffix ranges wrong).
describe.skipIf(onS3)("the /files route", () => {
  test("a suffix range gets the last bytes; bytes=-0 is unsatisfiable", async () => {
    const { url, bytes } = await storedImage();
    const last = await fetchStored(t, url, { headers: { range: "bytes=-5" } });
    expect(last.status).toBe(206);
    expect(last.headers.get("content-range")).toBe(`bytes ${bytes.length - 5}-${bytes.length - 1}/${bytes.length}`);
    expect(new Uint8Array(await last.arrayBuffer())).toEqual(bytes.slice(bytes.length - 5));
    expect((await fetchStored(t, url, { headers: { range: "bytes=-0" } })).status).toBe(416);
  });

  test("a 416 names the file's size in Content-Range", async () => {
    const { url, bytes } = await storedImage();
    const res = await fetchStored(t, url, { headers: { range: `bytes=${bytes.length + 5}-${bytes.length + 9}` } });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
  });

  test("several ranges, or a header that is no byte range, get the whole file", async () => {
    const { url, bytes } = await storedImage();
    for (const range of ["bytes=0-1,5-6", "items=0-1"]) {
      const res = await fetchStored(t, url, { headers: { range } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  test("HEAD of a file that is not there is a 404", async () => {
    await storedImage();
    expect((await fetchStored(t, `${t.service.config.cdnUrl}/products/nothere/x.png`, { method: "HEAD" })).status).toBe(404);
  });

  test("HEAD over a real socket keeps the length (Bun.serve sends no body)", async () => {
    const { url, bytes } = await storedImage();
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => t.service.handle(req) });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}${new URL(url).pathname}`, { method: "HEAD" });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-length")).toBe(String(bytes.length));
    } finally {
      server.stop(true);
    }
  });
});
