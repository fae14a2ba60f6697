// Hinted dekupe retries over the API: a hint that misses the photo is a 422 naming its field, a good one is queued and
// kept with its attempt; with the real ISNet model a pointed retry cuts out the object pointed at, while retries without
// a hint still change their method each time.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { installModel } from "../plugins/background-removal-isnet";
import { fetchStored, startImageHost, startService, tempDir, type ImageHost } from "./helpers";
import { iou, twoObjects, type HintScene } from "./support/hint-photos";

const SLOW = 240_000;
let host: ImageHost;
let scene: HintScene;

beforeAll(async () => {
  scene = await twoObjects();
  host = startImageHost({ "/two.jpg": { body: scene.photo, type: "image/jpeg" } });
});
afterAll(() => host.close());

describe("with the pass-through plugin", () => {
  test("a hint outside the photo, an empty box, an empty hint or one with unknown fields is a 422 naming the field", async () => {
    const t = await startService();
    try {
      const { token } = await t.newAccount();
      const p = await t.json("POST", "/v1/products", { token, body: { name: "Two", image_url: host.url("/two.jpg") } });
      await t.runJobs();
      const { width: w, height: h } = scene;
      const cases: [unknown, string][] = [
        [{ point: { x: w, y: 10 } }, "hint.point.x"],
        [{ point: { x: 10, y: -1 } }, "hint.point.y"],
        [{ box: { x: 10, y: 10, width: 0, height: 50 } }, "hint.box.width"],
        [{ box: { x: 10, y: 10, width: 50, height: h } }, "hint.box.height"],
        [{ box: { x: 10, y: 10, width: 50, height: 50 }, point: { x: 300, y: 300 } }, "hint.point"],
        [{ point: { x: 10, y: 10 }, exclude: [{ x: 20, y: 20 }, { x: 20, y: h + 5 }] }, "hint.exclude.1.y"],
        [{}, "hint"],
        [{ point: { x: 10, y: 10, z: 1 } }, "hint"],
      ];
      for (const [hint, field] of cases) {
        const res = await t.json("POST", `/v1/products/${p.body.id}/dekupe/retry`, { token, body: { hint } });
        expect(res.status).toBe(422);
        expect(res.body.details[0].field).toStartWith(field);
      }
      // None of them used a retry.
      expect((await t.json("GET", `/v1/products/${p.body.id}/dekupe`, { token })).body.retries_left).toBe(3);
    } finally {
      await t.close();
    }
  });

  test("a good hint is queued, and its attempt lists it", async () => {
    const t = await startService();
    try {
      const { token } = await t.newAccount();
      const p = await t.json("POST", "/v1/products", { token, body: { name: "Two", image_url: host.url("/two.jpg") } });
      await t.runJobs();
      const hint = { box: { x: 620, y: 180, width: 240, height: 280 }, exclude: [{ x: 5, y: 5 }] };
      expect((await t.json("POST", `/v1/products/${p.body.id}/dekupe/retry`, { token, body: { hint } })).status).toBe(202);
      await t.runJobs();
      const list = (await t.json("GET", `/v1/products/${p.body.id}/dekupe/attempts`, { token })).body.data;
      expect(list.map((a: { hint: unknown }) => a.hint)).toEqual([null, hint]);
      expect(list[1].box).toMatchObject({ x: expect.any(Number), width: expect.any(Number) });
      expect(list[1].box.hint).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});

describe("with the ISNet model", () => {
  let root: string;
  let modelDir: string;
  beforeAll(async () => {
    root = tempDir("vitrin-hint-api-");
    modelDir = join(root, "isnet");
    await installModel(modelDir);
  }, SLOW);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("a retry pointed at the block cuts out the block (IoU >= 0.8); retries without a hint change their method", async () => {
    const t = await startService({ VITRIN_BACKGROUND_REMOVAL: "isnet", VITRIN_MODEL_DIR: modelDir, VITRIN_DEKUPE_THREADS: "2" });
    try {
      const { token } = await t.newAccount();
      const p = await t.json("POST", "/v1/products", { token, body: { name: "Two", image_url: host.url("/two.jpg") } });
      await t.runJobs();
      const point = { x: scene.b.x + scene.b.width / 2, y: scene.b.y + scene.b.height / 2 };
      expect((await t.json("POST", `/v1/products/${p.body.id}/dekupe/retry`, { token, body: { crop: "none", hint: { point } } })).status).toBe(202);
      await t.runJobs();
      const hinted = (await t.json("GET", `/v1/products/${p.body.id}/dekupe`, { token })).body;
      expect(hinted.status).toBe("ready");
      const png = new Uint8Array(await (await fetchStored(t, hinted.preview_url)).arrayBuffer());
      const alpha = new Uint8Array(await sharp(png).ensureAlpha().extractChannel(3).raw().toBuffer());
      expect(iou(alpha, await scene.alphaOf("b"))).toBeGreaterThanOrEqual(0.8);
      expect(iou(alpha, await scene.alphaOf("a"))).toBeLessThan(0.05);

      expect((await t.json("POST", `/v1/products/${p.body.id}/dekupe/retry`, { token })).status).toBe(202);
      await t.runJobs();
      const methods = (await t.json("GET", `/v1/products/${p.body.id}/dekupe/attempts`, { token })).body.data.map((a: { method: string }) => a.method);
      expect(methods).toHaveLength(3);
      expect(methods[1]).toStartWith("hint: point");
      expect(new Set([methods[0], methods[2]]).size).toBe(2);
      expect(methods[2]).not.toContain("hint");
    } finally {
      await t.close();
    }
  }, SLOW);
});
