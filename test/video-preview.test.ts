// POST /v1/videos/preview: the poster frame of a video request (the caller's product, copy and format) as a PNG at
// half size; free (no ledger row, no video, no job), checked like create, and limited per account.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import sharp from "sharp";
import { storedKeys, type TestService } from "./helpers";
import { layoutService, TOO_LONG } from "./support/layout-fixture";

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

describe("POST /v1/videos/preview", () => {
  test("a PNG of the format at half size, and nothing charged, stored or queued", async () => {
    const s = await layoutService();
    t = s.t;
    for (const [aspect, width, height] of [["9:16", 540, 960], ["16:9", 960, 540]] as const) {
      const started = performance.now();
      const res = await t.call("POST", "/v1/videos/preview", {
        token: s.token,
        body: { template_id: "layout-fixture", product_id: s.productId, user_prompt: { headline: "Stoneware mug" }, aspect_ratio: aspect, music: "none", webhook_url: "http://127.0.0.1:9/unused" },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      const meta = await sharp(new Uint8Array(await res.arrayBuffer())).metadata();
      expect({ aspect, width: meta.width, height: meta.height }).toEqual({ aspect, width, height });
      // Within a second or two on an idle machine; the bound leaves room for a loaded test machine.
      expect(performance.now() - started).toBeLessThan(10_000);
    }
    expect((await t.json("GET", "/v1/balance", { token: s.token })).body.credits).toBe(5);
    expect((await t.json("GET", "/v1/balance/transactions", { token: s.token })).body.data.filter((x: { type: string }) => x.type === "usage")).toEqual([]);
    expect((await t.json("GET", "/v1/videos", { token: s.token })).body.data).toEqual([]);
    expect(await t.runJobs()).toBe(0);
    expect(await storedKeys(t, "videos/")).toEqual([]);
  }, 60_000);

  test("checked like create: bad layout and bad format are 422, another account's product 404", async () => {
    const s = await layoutService();
    t = s.t;
    const long = await t.json("POST", "/v1/videos/preview", { token: s.token, body: { template_id: "layout-fixture", product_id: s.productId, user_prompt: { headline: TOO_LONG } } });
    expect(long.status).toBe(422);
    expect(long.body.details.map((d: { field: string }) => d.field)).toContain("user_prompt.headline");
    const format = await t.json("POST", "/v1/videos/preview", { token: s.token, body: { template_id: "layout-fixture", product_id: s.productId, aspect_ratio: "3:2" } });
    expect(format.status).toBe(422);
    expect(format.body.details.map((d: { field: string }) => d.field)).toContain("aspect_ratio");
    const other = await t.newAccount();
    const theirs = await t.json("POST", "/v1/videos/preview", { token: other.token, body: { template_id: "layout-fixture", product_id: s.productId } });
    expect(theirs.status).toBe(404);
  }, 60_000);

  test("a renderer without previews (nor a layout check) answers the catalogue's 404; its estimates go through unchecked", async () => {
    const s = await layoutService({ VITRIN_PLUGIN_DIRS: join(import.meta.dir, "../examples/plugins"), VITRIN_RENDERER: "still" });
    t = s.t;
    const body = { template_id: "layout-fixture", product_id: s.productId, user_prompt: { headline: TOO_LONG } };
    const res = await t.json("POST", "/v1/videos/preview", { token: s.token, body });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not found", code: "previews_not_supported", message: 'The renderer "still" makes no template previews.' });
    expect((await t.json("POST", "/v1/videos/estimate", { token: s.token, body })).status).toBe(200);
  }, 60_000);

  test("past VITRIN_PREVIEWS_PER_MINUTE an account gets 429 with Retry-After; another account still gets previews", async () => {
    const s = await layoutService({ VITRIN_PREVIEWS_PER_MINUTE: "2" });
    t = s.t;
    const body = { template_id: "layout-fixture", product_id: s.productId, aspect_ratio: "1:1" };
    expect((await t.call("POST", "/v1/videos/preview", { token: s.token, body })).status).toBe(200);
    expect((await t.call("POST", "/v1/videos/preview", { token: s.token, body })).status).toBe(200);
    const third = await t.json("POST", "/v1/videos/preview", { token: s.token, body });
    expect(third.status).toBe(429);
    expect(third.body.error).toBe("Too many requests");
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await t.newAccount();
    expect((await t.json("POST", "/v1/videos/preview", { token: other.token, body: { ...body, product_id: "prd_none" } })).status).toBe(404);
  }, 60_000);
});
