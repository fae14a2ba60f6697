// Dekupe end to end with the real ISNet model: real photos through POST /v1/products and the job engine, to a
// transparent cut-out served under {cdn_url}; and the job's clear failures (nothing found, damaged model).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { createIsnetRemoval, installModel } from "../plugins/background-removal-isnet";
import { fetchStored, startImageHost, startService, storageKeyOf, tempDir, type ImageHost, type TestService } from "./helpers";

const SLOW = 120_000;
const photo = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "fixtures", "photos", name)));

let root: string;
let modelDir: string;
let host: ImageHost;
let t: TestService | null = null;

beforeAll(async () => {
  root = tempDir("vitrin-isnet-api-");
  modelDir = join(root, "isnet");
  await installModel(modelDir);
  const blank = await sharp({ create: { width: 800, height: 600, channels: 3, background: "#e8e4dc" } }).jpeg().toBuffer();
  host = startImageHost({
    "/coffee.jpg": { body: photo("coffee.jpg"), type: "image/jpeg" },
    "/astronaut.jpg": { body: photo("astronaut.jpg"), type: "image/jpeg" },
    "/blank.jpg": { body: new Uint8Array(blank), type: "image/jpeg" },
  });
}, SLOW);

afterEach(async () => {
  await t?.close();
  t = null;
});

afterAll(() => {
  host.close();
  rmSync(root, { recursive: true, force: true });
});

async function isnetService(dir = modelDir): Promise<{ t: TestService; token: string }> {
  t = await startService({ VITRIN_BACKGROUND_REMOVAL: "isnet", VITRIN_MODEL_DIR: dir, VITRIN_DEKUPE_THREADS: "2" });
  return { t, token: (await t.newAccount()).token };
}

async function pixels(res: Response) {
  expect(res.status).toBe(200);
  const { data, info } = await sharp(new Uint8Array(await res.arrayBuffer())).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const alpha = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
  return { width: info.width, height: info.height, channels: info.channels, alpha };
}

describe("dekupe with the ISNet model, through the API", () => {
  test("two real photos posted together both end ready: a transparent cut-out under {cdn_url}, the original kept", async () => {
    const { t, token } = await isnetService();
    const created = await Promise.all(
      ["/coffee.jpg", "/astronaut.jpg"].map((path) => t.json("POST", "/v1/products", { token, body: { name: path, image_url: host.url(path) } })),
    );
    for (const c of created) {
      expect(c.status).toBe(201);
      expect(c.body.dekupe.status).toBe("processing");
    }
    await t.runJobs();
    for (const c of created) {
      const product = await t.json("GET", `/v1/products/${c.body.id}`, { token });
      expect(product.body.dekupe.status).toBe("ready");
      // Under {cdn_url}: the app's /files on local disk, the bucket on S3.
      expect(storageKeyOf(product.body.image_url)).toMatch(/^products\/prod_\w+\/cutout-\w+\.png$/);
      expect(storageKeyOf(product.body.original_image_url)).toEndWith(".jpg");
      expect(product.body.image_url).not.toBe(product.body.original_image_url);

      const cut = await pixels(await fetchStored(t, product.body.image_url));
      expect(Math.max(cut.width, cut.height)).toBeLessThanOrEqual(1024);
      expect(cut.channels).toBe(4);
      // Both photos have background above the product: the top corners are see-through, the box's centre is not.
      expect(cut.alpha(0, 0)).toBeLessThan(8);
      expect(cut.alpha(cut.width - 1, 0)).toBeLessThan(8);
      const preview = await t.json("GET", `/v1/products/${c.body.id}/dekupe`, { token });
      const box = preview.body.box;
      expect(cut.alpha(Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2))).toBeGreaterThan(200);
      expect(preview.body.timings.inference_ms).toBeGreaterThan(0);
      expect(preview.body.timings.cutout_ms).toBeGreaterThanOrEqual(preview.body.timings.inference_ms);

      const mask = await pixels(await fetchStored(t, preview.body.mask_url));
      expect([mask.width, mask.height]).toEqual([cut.width, cut.height]);
      // The original is still served as it was.
      expect((await fetchStored(t, product.body.original_image_url)).status).toBe(200);
    }
  }, SLOW);

  test("a retry through the API makes a different cut-out of the same photo", async () => {
    const { t, token } = await isnetService();
    const c = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: host.url("/coffee.jpg") } });
    await t.runJobs();
    const first = await t.json("GET", `/v1/products/${c.body.id}/dekupe`, { token });
    const firstBytes = new Uint8Array(await (await fetchStored(t, first.body.preview_url)).arrayBuffer());
    const retry = await t.json("POST", `/v1/products/${c.body.id}/dekupe/retry`, { token });
    expect(retry.status).toBe(202);
    await t.runJobs();
    const second = await t.json("GET", `/v1/products/${c.body.id}/dekupe`, { token });
    expect(second.body).toMatchObject({ status: "ready", attempts: 2, retries_left: 2 });
    expect(second.body.timings.variant).not.toBe(first.body.timings.variant);
    const secondBytes = new Uint8Array(await (await fetchStored(t, second.body.preview_url)).arrayBuffer());
    expect(Buffer.from(secondBytes).equals(Buffer.from(firstBytes))).toBe(false);
    // Attempt 2 crops tighter.
    const a = await sharp(firstBytes).metadata();
    const b = await sharp(secondBytes).metadata();
    expect(b.width! * b.height!).toBeLessThan(a.width! * a.height!);
  }, SLOW);

  test("loading the model and cutting out make no network request", async () => {
    const calls: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = Object.assign(
      async (input: string | URL | Request) => {
        calls.push(String(input instanceof Request ? input.url : input));
        throw new Error("no network in this test");
      },
      { preconnect: realFetch.preconnect },
    ) as typeof fetch;
    const plugin = createIsnetRemoval({ modelDir, threads: 2, idleMs: 0 });
    try {
      const cut = await plugin.remove({ image: photo("astronaut.jpg"), attempt: 1 });
      expect(cut.width).toBeGreaterThan(0);
    } finally {
      globalThis.fetch = realFetch;
      await plugin.close?.();
    }
    expect(calls).toEqual([]);
  }, SLOW);

  test("a photo with nothing in it ends failed with a clear error, and the original stays in use", async () => {
    const { t, token } = await isnetService();
    const c = await t.json("POST", "/v1/products", { token, body: { name: "Empty table", image_url: host.url("/blank.jpg") } });
    await t.runJobs();
    const product = await t.json("GET", `/v1/products/${c.body.id}`, { token });
    expect(product.body.dekupe.status).toBe("failed");
    expect(product.body.dekupe.error).toMatch(/^Background removal failed: No product found in the image: /);
    expect(product.body.dekupe.error_code).toBe("no_subject");
    expect(product.body.image_url).toBe(product.body.original_image_url);
    expect((await fetchStored(t, product.body.image_url)).status).toBe(200);
  }, SLOW);

  test("a hinted retry whose exclude points leave nothing to cut out fails as no_subject, asking for a point or a box", async () => {
    const { t, token } = await isnetService();
    const c = await t.json("POST", "/v1/products", { token, body: { name: "Empty table", image_url: host.url("/blank.jpg") } });
    await t.runJobs();
    const retry = await t.json("POST", `/v1/products/${c.body.id}/dekupe/retry`, { token, body: { hint: { exclude: [{ x: 10, y: 10 }] } } });
    expect(retry.status).toBe(202);
    await t.runJobs();
    const dekupe = (await t.json("GET", `/v1/products/${c.body.id}`, { token })).body.dekupe;
    expect(dekupe).toMatchObject({ status: "failed", error_code: "no_subject" });
    expect(dekupe.error).toMatch(/No object found under the hint.*point or a box/);
  }, SLOW);

  test("a damaged model fails the job with a clear error, readiness reports it, and the original stays in use", async () => {
    const dir = join(root, "damaged");
    await installModel(dir);
    const { t, token } = await isnetService(dir);
    // Damaged after start-up, which would otherwise have repaired it.
    const fd = openSync(join(dir, "onnx", "model.onnx"), "r+");
    writeSync(fd, Buffer.alloc(4096, 7), 0, 4096, 40_000_000);
    closeSync(fd);

    const c = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: host.url("/coffee.jpg") } });
    await t.runJobs();
    const product = await t.json("GET", `/v1/products/${c.body.id}`, { token });
    expect(product.body.dekupe.status).toBe("failed");
    expect(product.body.dekupe.error).toMatch(/is damaged .*Run `vitrin models install`/);
    expect(product.body.dekupe.error_code).toBe("removal_failed");
    expect(product.body.image_url).toBe(product.body.original_image_url);
    const ready = await t.call("GET", "/readyz");
    expect(ready.status).toBe(503);
    expect(await ready.text()).toContain("damaged");
  }, SLOW);
});
