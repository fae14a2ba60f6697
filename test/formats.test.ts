// aspect_ratio on video requests: four formats, 9:16 by default, anything else 422; stored, returned (and so in
// webhooks), priced with the format's size in the estimate, and rendered at that format's proportions.
import { afterEach, describe, expect, test } from "bun:test";
import type { TestService } from "./helpers";
import { layoutService } from "./support/layout-fixture";

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

describe("aspect_ratio", () => {
  test("the estimate gives each format's size; 9:16 is the default; another value is 422 naming the field", async () => {
    const s = await layoutService();
    t = s.t;
    const base = { template_id: "layout-fixture", product_id: s.productId };
    const sizes = { "9:16": [1080, 1920], "4:5": [1080, 1350], "1:1": [1080, 1080], "16:9": [1920, 1080] } as const;
    for (const [aspect, [width, height]] of Object.entries(sizes)) {
      const res = await t.json("POST", "/v1/videos/estimate", { token: s.token, body: { ...base, aspect_ratio: aspect } });
      expect({ aspect, status: res.status, body: res.body }).toMatchObject({ aspect, status: 200, body: { aspect_ratio: aspect, width, height } });
    }
    expect((await t.json("POST", "/v1/videos/estimate", { token: s.token, body: base })).body).toMatchObject({ aspect_ratio: "9:16", width: 1080, height: 1920 });
    for (const bad of ["2:3", "16/9", "", 1]) {
      const res = await t.json("POST", "/v1/videos", { token: s.token, body: { ...base, aspect_ratio: bad } });
      expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain("aspect_ratio");
    }
    expect((await t.json("GET", "/v1/videos", { token: s.token })).body.data).toEqual([]);
  }, 60_000);

  test("a 16:9 video is stored and returned as such and rendered landscape", async () => {
    const s = await layoutService();
    t = s.t;
    const created = await t.json("POST", "/v1/videos", { token: s.token, body: { template_id: "layout-fixture", product_id: s.productId, aspect_ratio: "16:9" } });
    expect(created.status).toBe(202);
    expect(created.body.aspect_ratio).toBe("16:9");
    await t.runJobs();
    const done = await t.json("GET", `/v1/videos/${created.body.id}`, { token: s.token });
    expect(done.body).toMatchObject({ status: "completed", aspect_ratio: "16:9" });
    // Tests render at a quarter of the size through the same code: 1920×1080 becomes 480×270.
    expect([done.body.width, done.body.height]).toEqual([480, 270]);
  }, 120_000);

  test("templates list keeps working and a built-in template takes short copy in a non-default format", async () => {
    const s = await layoutService();
    t = s.t;
    const list = await t.json("GET", "/v1/templates", { token: s.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain("spotlight");
    const res = await t.json("POST", "/v1/videos/estimate", { token: s.token, body: { template_id: "spotlight", product_id: s.productId, user_prompt: { headline: "Mug" }, aspect_ratio: "1:1" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ aspect_ratio: "1:1", width: 1080, height: 1080 });
  }, 60_000);
});
