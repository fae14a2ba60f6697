// The dekupe endpoints on products: preview, up to three retries, revert, and the job's bookkeeping.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { fetchStored, productPhoto, startImageHost, startService, storedBytes, storageKeyOf, type ImageHost, type TestService } from "./helpers";

let host: ImageHost;
let t: TestService;
let acct: { id: string; token: string };

beforeAll(async () => {
  host = startImageHost({ "/mug.jpg": { body: await productPhoto("jpeg", 1600, 1200), type: "image/jpeg" } });
});
afterAll(() => host.close());
beforeEach(async () => {
  t = await startService();
  acct = await t.newAccount();
});
afterEach(async () => {
  await t.close();
});

async function readyProduct() {
  const p = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg") } });
  await t.runJobs();
  return p.body.id as string;
}

describe("dekupe", () => {
  test("the preview shows status, URLs, box and timings once ready", async () => {
    const id = await readyProduct();
    const res = await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ product_id: id, status: "ready", attempts: 1, retries_left: 3, error: null });
    expect(storageKeyOf(res.body.preview_url)).toEndWith(".png");
    expect(storageKeyOf(res.body.mask_url)).toEndWith(".png");
    expect(res.body.box).toEqual({ x: 0, y: 0, width: 1024, height: 768 });
    expect(res.body.timings.cutout_ms).toBeGreaterThanOrEqual(0);
    expect((await fetchStored(t, res.body.preview_url)).status).toBe(200);
  });

  test("three retries are allowed, the fourth is a 409", async () => {
    const id = await readyProduct();
    for (let i = 0; i < 3; i++) {
      const res = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
      expect(res.status).toBe(202);
      expect(res.body.status).toBe("processing");
      expect(res.body.retries_left).toBe(2 - i);
      await t.runJobs();
    }
    const res = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: "Conflict", retries_left: 0 });
    const final = await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token });
    expect(final.body.attempts).toBe(4);
  });

  test("on a product made with dekupe off, the first cut-out is no retry: three remain after it", async () => {
    const p = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false } });
    const id = p.body.id as string;
    expect(p.body.dekupe).toMatchObject({ status: "off", attempts: 0, retries_left: 3 });
    const first = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: "processing", attempts: 1, retries_left: 3 });
    await t.runJobs();
    for (let i = 0; i < 3; i++) {
      const res = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
      expect([res.status, res.body.retries_left]).toEqual([202, 2 - i]);
      await t.runJobs();
    }
    const res = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
    expect(res.status).toBe(409);
    expect((await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token })).body.attempts).toBe(4);
  });

  test("a retry while one is running is a 409", async () => {
    const id = await readyProduct();
    await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
    const res = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
    expect(res.status).toBe(409);
  });

  test("revert puts the original image back", async () => {
    const id = await readyProduct();
    const res = await t.json("POST", `/v1/products/${id}/dekupe/revert`, { token: acct.token });
    expect(res.status).toBe(200);
    expect(storageKeyOf(res.body.image_url)).toBe(storageKeyOf(res.body.original_image_url));
    expect(res.body.dekupe.status).toBe("off");
  });

  test("a retry's cut-out is used, and the previous attempt's files stay for the attempts list", async () => {
    const id = await readyProduct();
    const first = (await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token })).body.preview_url;
    await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
    await t.runJobs();
    const second = (await t.json("GET", `/v1/products/${id}/dekupe`, { token: acct.token })).body.preview_url;
    expect(storageKeyOf(second)).not.toBe(storageKeyOf(first));
    expect(await storedBytes(t, first)).not.toBeNull();
  });

  test("a deleted product's pending dekupe job finishes quietly", async () => {
    const p = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg") } });
    await t.json("DELETE", `/v1/products/${p.body.id}`, { token: acct.token });
    await t.runJobs();
    expect(t.logs.filter((r) => r.level === "error")).toEqual([]);
  });
});
