// Every cut-out attempt stays listable with its files, one is accepted for videos, revert goes back to the photo,
// and the attempts' files go with the product or its replaced photo (pass-through plugin: no model needed here).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { productPhoto, startImageHost, startService, storageKeyOf, storedBytes, type ImageHost, type TestService } from "./helpers";

let host: ImageHost;
let t: TestService;
let acct: { id: string; token: string };

beforeAll(async () => {
  host = startImageHost({
    "/mug.jpg": { body: await productPhoto("jpeg", 1600, 1200), type: "image/jpeg" },
    "/vase.png": { body: await productPhoto("png", 800, 800), type: "image/png" },
  });
});
afterAll(() => host.close());
beforeEach(async () => {
  t = await startService();
  acct = await t.newAccount();
});
afterEach(async () => {
  await t.close();
});

/** A product whose cut-out was made `1 + retries` times (crop "none" on the second, to tell them apart). */
async function productWithAttempts(retries: number) {
  const p = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg") } });
  await t.runJobs();
  for (let i = 0; i < retries; i++) {
    const res = await t.json("POST", `/v1/products/${p.body.id}/dekupe/retry`, { token: acct.token, body: i === 0 ? { crop: "none" } : {} });
    expect(res.status).toBe(202);
    await t.runJobs();
  }
  return p.body.id as string;
}

const attempts = async (id: string) => (await t.json("GET", `/v1/products/${id}/dekupe/attempts`, { token: acct.token })).body;
const accept = (id: string, body: unknown) => t.json("POST", `/v1/products/${id}/dekupe/accept`, { token: acct.token, body });

describe("dekupe attempts", () => {
  test("every attempt stays listed with its own files; the latest is in use", async () => {
    const id = await productWithAttempts(2);
    const list = await attempts(id);
    expect(list.data.map((a: { number: number }) => a.number)).toEqual([1, 2, 3]);
    expect(list.data.map((a: { crop: string }) => a.crop)).toEqual(["subject", "none", "subject"]);
    expect(list.data.map((a: { in_use: boolean }) => a.in_use)).toEqual([false, false, true]);
    for (const a of list.data) {
      expect(a).toMatchObject({ object: "dekupe_attempt", status: "ready", method: "pass-through (no model)", accepted: false });
      expect(a.source_box).toEqual({ x: 0, y: 0, width: 1600, height: 1200 });
      expect(a.warnings).toContain("frame_filling");
      expect(await storedBytes(t, a.preview_url)).not.toBeNull();
    }
  });

  test("an accepted attempt is the product's image, and a later retry does not replace it", async () => {
    const id = await productWithAttempts(1);
    const [first] = (await attempts(id)).data;
    const res = await accept(id, { attempt_id: first.id });
    expect(res.status).toBe(200);
    expect(storageKeyOf(res.body.image_url)).toBe(storageKeyOf(first.preview_url));
    expect(res.body.dekupe).toMatchObject({ status: "ready", crop: "subject", preview_url: first.preview_url });
    await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
    await t.runJobs();
    const list = (await attempts(id)).data;
    expect(list).toHaveLength(3);
    expect(list.map((a: { in_use: boolean; accepted: boolean }) => [a.in_use, a.accepted])).toEqual([[true, true], [false, false], [false, false]]);
    const product = await t.json("GET", `/v1/products/${id}`, { token: acct.token });
    expect(storageKeyOf(product.body.image_url)).toBe(storageKeyOf(first.preview_url));
  });

  test("revert returns to the photo and forgets the accepted attempt; accept turns the cut-out back on", async () => {
    const id = await productWithAttempts(1);
    const [first, second] = (await attempts(id)).data;
    await accept(id, { attempt_id: first.id });
    const reverted = await t.json("POST", `/v1/products/${id}/dekupe/revert`, { token: acct.token });
    expect(storageKeyOf(reverted.body.image_url)).toBe(storageKeyOf(reverted.body.original_image_url));
    expect((await attempts(id)).data.every((a: { accepted: boolean; in_use: boolean }) => !a.accepted && !a.in_use)).toBe(true);
    const res = await accept(id, { attempt_id: second.id });
    expect(storageKeyOf(res.body.image_url)).toBe(storageKeyOf(second.preview_url));
    expect(res.body.dekupe).toMatchObject({ enabled: true, status: "ready", crop: "none" });
  });

  test("revert refuses while an attempt runs (409), so the attempt it used is made and listed; after it, revert goes through", async () => {
    const id = await productWithAttempts(0);
    expect((await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token })).status).toBe(202);
    const early = await t.json("POST", `/v1/products/${id}/dekupe/revert`, { token: acct.token });
    expect([early.status, early.body.details ?? early.body.dekupe_status]).toEqual([409, "processing"]);
    expect(early.body.message).toContain("revert once it has finished");
    await t.runJobs();
    expect((await attempts(id)).data.map((a: { number: number; status: string }) => [a.number, a.status])).toEqual([[1, "ready"], [2, "ready"]]);
    const reverted = await t.json("POST", `/v1/products/${id}/dekupe/revert`, { token: acct.token });
    expect([reverted.status, reverted.body.dekupe.status]).toEqual([200, "off"]);
  });

  test("accept refuses an unknown attempt (404) and a body with a missing or unknown field (422)", async () => {
    const id = await productWithAttempts(0);
    const [first] = (await attempts(id)).data;
    expect((await accept(id, { attempt_id: "dka_nope" })).status).toBe(404);
    expect((await accept(id, {})).status).toBe(422);
    expect((await accept(id, { attempt_id: first.id, force: true })).status).toBe(422);
    const other = await t.newAccount();
    const res = await t.json("POST", `/v1/products/${id}/dekupe/accept`, { token: other.token, body: { attempt_id: first.id } });
    expect(res.status).toBe(404);
  });

  test("accept refuses while an attempt runs, and a failed attempt is listed but cannot be accepted (409)", async () => {
    const id = await productWithAttempts(0);
    const [first] = (await attempts(id)).data;
    await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token: acct.token });
    expect((await accept(id, { attempt_id: first.id })).status).toBe(409);
    // The photo gone from storage makes the running attempt fail.
    const product = await t.json("GET", `/v1/products/${id}`, { token: acct.token });
    await t.service.plugins.storage.delete(storageKeyOf(product.body.original_image_url));
    await t.runJobs();
    const list = (await attempts(id)).data;
    expect(list[1]).toMatchObject({ number: 2, status: "failed", preview_url: null, error: "The original image is missing from storage.", error_code: "image_missing" });
    const res = await accept(id, { attempt_id: list[1].id });
    expect(res.status).toBe(409);
    expect(res.body.status).toBe("failed");
    expect((await accept(id, { attempt_id: first.id })).status).toBe(200);
  });

  test("deleting the product deletes every attempt's files", async () => {
    const id = await productWithAttempts(2);
    const list = (await attempts(id)).data;
    expect((await t.json("DELETE", `/v1/products/${id}`, { token: acct.token })).status).toBe(200);
    for (const a of list) {
      expect(await storedBytes(t, a.preview_url)).toBeNull();
      expect(await storedBytes(t, a.mask_url)).toBeNull();
    }
  });

  test("a new photo drops the old photo's attempts and their files", async () => {
    const id = await productWithAttempts(1);
    const old = (await attempts(id)).data;
    const res = await t.json("PATCH", `/v1/products/${id}`, { token: acct.token, body: { image_url: host.url("/vase.png") } });
    expect(res.status).toBe(200);
    await t.runJobs();
    const list = (await attempts(id)).data;
    expect(list).toHaveLength(1);
    expect(list[0].source_box).toEqual({ x: 0, y: 0, width: 800, height: 800 });
    for (const a of old) expect(await storedBytes(t, a.preview_url)).toBeNull();
  });
});
