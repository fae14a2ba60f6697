// The layout engine before anything is charged: copy that cannot fit, a box outside the safe area or over the product
// is 422 naming the field at estimate and at create, with no ledger row and no video; copy that fits goes through; a
// price too wide is blamed on the price field; and the engine's rules on hand-made scenes (where a layer settles,
// right-to-left mirroring, overlaps, tickers, formatted prices, positions that are not numbers).
import { afterEach, describe, expect, test } from "bun:test";
import type { TestService } from "./helpers";
import { fixtureBuilds, layoutService, TOO_LONG } from "./support/layout-fixture";
import { fieldOf, LayoutLedger, layoutProblems, settledMoments } from "../plugins/renderer-ffmpeg/layout";

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function nothingCharged(s: TestService, token: string) {
  expect((await s.json("GET", "/v1/balance", { token })).body.credits).toBe(5);
  expect((await s.json("GET", "/v1/balance/transactions", { token })).body.data.filter((x: { type: string }) => x.type === "usage")).toEqual([]);
  expect((await s.json("GET", "/v1/videos", { token })).body.data).toEqual([]);
}

describe("layout check at estimate and create", () => {
  test("a headline that cannot fit even at the headline floor is 422 naming user_prompt.headline, and nothing is charged", async () => {
    const s = await layoutService();
    t = s.t;
    const body = { template_id: "layout-fixture", product_id: s.productId, user_prompt: { headline: TOO_LONG } };
    for (const path of ["/v1/videos/estimate", "/v1/videos"]) {
      const res = await t.json("POST", path, { token: s.token, body });
      expect({ path, status: res.status }).toEqual({ path, status: 422 });
      expect(res.body.error).toBe("Validation failed");
      expect(res.body.details).toContainEqual({ field: "user_prompt.headline", message: expect.stringContaining("64 px") });
    }
    await nothingCharged(t, s.token);
  }, 60_000);

  test("copy that fits passes: the estimate answers and the video is created", async () => {
    const s = await layoutService();
    t = s.t;
    const body = { template_id: "layout-fixture", product_id: s.productId, user_prompt: { headline: "Stoneware mug" } };
    expect((await t.json("POST", "/v1/videos/estimate", { token: s.token, body })).status).toBe(200);
    const created = await t.json("POST", "/v1/videos", { token: s.token, body });
    expect(created.status).toBe(202);
  }, 60_000);

  test("an estimate and the create that follows lay the same copy out once; other copy is laid out again", async () => {
    const s = await layoutService();
    t = s.t;
    const body = { template_id: "layout-fixture", product_id: s.productId, user_prompt: { headline: "Stoneware mug" } };
    const before = fixtureBuilds();
    expect((await t.json("POST", "/v1/videos/estimate", { token: s.token, body })).status).toBe(200);
    expect(fixtureBuilds()).toBe(before + 1);
    expect((await t.json("POST", "/v1/videos", { token: s.token, body })).status).toBe(202);
    expect(fixtureBuilds()).toBe(before + 1);
    const other = { ...body, user_prompt: { headline: "Stoneware cup" } };
    expect((await t.json("POST", "/v1/videos/estimate", { token: s.token, body: other })).status).toBe(200);
    expect(fixtureBuilds()).toBe(before + 2);
    // A refused layout is remembered too, and refused again without building.
    const long = { ...body, user_prompt: { headline: TOO_LONG } };
    expect((await t.json("POST", "/v1/videos/estimate", { token: s.token, body: long })).status).toBe(422);
    expect((await t.json("POST", "/v1/videos", { token: s.token, body: long })).status).toBe(422);
    expect(fixtureBuilds()).toBe(before + 3);
  }, 60_000);

  test("a newline in the copy is a line break: two lines in a one-line field do not fit", async () => {
    const s = await layoutService();
    t = s.t;
    const res = await t.json("POST", "/v1/videos/estimate", { token: s.token, body: { template_id: "layout-fixture", product_id: s.productId, user_prompt: { headline: "Stoneware\nmug" } } });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain("user_prompt.headline");
  }, 60_000);

  test("a default headline that cannot fit names product.name", async () => {
    const s = await layoutService();
    t = s.t;
    const rename = await t.json("PATCH", `/v1/products/${s.productId}`, { token: s.token, body: { name: TOO_LONG } });
    expect(rename.status).toBe(200);
    const res = await t.json("POST", "/v1/videos/estimate", { token: s.token, body: { template_id: "layout-fixture", product_id: s.productId } });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain("product.name");
  }, 60_000);

  test("a button in the strip the apps cover is outside the safe area; a headline over the product overlaps it", async () => {
    const s = await layoutService();
    t = s.t;
    const edge = await t.json("POST", "/v1/videos", { token: s.token, body: { template_id: "layout-fixture", product_id: s.productId, user_prompt: { layout: "edge" } } });
    expect(edge.status).toBe(422);
    expect(edge.body.details).toContainEqual({ field: "user_prompt.call_to_action", message: expect.stringContaining("safe area of the 9:16 format") });
    const over = await t.json("POST", "/v1/videos/estimate", { token: s.token, body: { template_id: "layout-fixture", product_id: s.productId, user_prompt: { layout: "overlap" } } });
    expect(over.status).toBe(422);
    expect(over.body.details).toContainEqual({ field: "product.name", message: expect.stringContaining("overlaps the product") });
    await nothingCharged(t, s.token);
  }, 60_000);
});

describe("a price too wide to fit names the price field, not the template", () => {
  test("spotlight's sticker (texts without a name) with a huge price, or a price in an unknown currency in de and ja, is user_prompt.price", async () => {
    const s = await layoutService();
    t = s.t;
    const cases: [string, Record<string, unknown>][] = [
      ["en", { price: 999999999.99, currency: "USD" }],
      ["de", { price: 1234.5, currency: "XXX" }],
      ["ja", { price: 1234.5, currency: "XXX" }],
    ];
    for (const [language, user_prompt] of cases) {
      const res = await t.json("POST", "/v1/videos/estimate", { token: s.token, body: { template_id: "spotlight", product_id: s.productId, language, user_prompt } });
      const fields = [...new Set((res.body.details ?? []).map((d: { field: string }) => d.field))];
      expect({ language, status: res.status, fields }).toEqual({ language, status: 422, fields: ["user_prompt.price"] });
    }
    await nothingCharged(t, s.token);
  }, 60_000);
});

describe("the engine's rules on a scene", () => {
  const asset = (path: string, w: number, h: number) => ({ path, width: w, height: h, w, h });
  const frame = (rtl: boolean) => ({ aspect: "9:16" as const, width: 1080, duration: 4, posterAt: 3, rtl });
  const copy = { prompt: { headline: "Mug" }, product: { name: "Mug", description: null } };
  const ledgerWith = (...texts: [string, string][]) => {
    const ledger = new LayoutLedger();
    for (const [path, name] of texts) ledger.text(path, name, { text: "Mug", size: 96, maxWidth: 600 }, { fontSize: 96 });
    return ledger;
  };

  test("a text without a telling name is matched to the prompt's price by the words ctx.price() wrote for it", () => {
    const product = { name: "Mug", description: null };
    const prompt = { price: 999999999.99, old_price: 1234.5, currency: "USD" };
    const prices = [{ text: "$999,999,999.99", field: "price" }, { text: "$1,234.50", field: "old_price" }];
    expect(fieldOf("text", "$999,999,999.99", { prompt, product, prices })).toBe("user_prompt.price");
    expect(fieldOf("text", "Was $1,234.50", { prompt, product, prices })).toBe("user_prompt.old_price");
    expect(fieldOf("text", "Now", { prompt, product, prices })).toBe("template_id");
    expect(fieldOf("text", "$999,999,999.99", { prompt, product })).toBe("template_id");
  });

  test("a layer whose position is not a number is the template's fault", () => {
    const scene = { background: asset("bg.png", 1080, 1920), layers: [{ name: "headline", image: asset("h.png", 200, 100), x: Number.NaN, y: 800 }] };
    expect(layoutProblems(scene, ledgerWith(["h.png", "headline"]), frame(false), copy)).toContainEqual({ field: "template_id", message: expect.stringContaining("not a number") });
  });

  test("a text is judged where it settles: after its move ends and at the poster time, not mid-entrance", () => {
    const layer = { name: "headline", image: asset("h.png", 300, 100), x: 500, y: [[0.8, 900], [1.3, 860, "out"]] as [number, number, "out"?][], opacity: [[0.8, 0], [1.1, 1]] as [number, number][] };
    expect(settledMoments(layer, frame(false))).toEqual([3, 1.3]);
  });

  test("right to left, the safe area is mirrored with the scene: a box fine left to right lands in the covered strip", () => {
    const scene = { background: asset("bg.png", 1080, 1920), layers: [{ name: "headline", image: asset("h.png", 200, 100), x: 100, y: 800, anchor: [0, 0.5] as [number, number] }] };
    expect(layoutProblems(scene, ledgerWith(["h.png", "headline"]), frame(false), copy)).toEqual([]);
    const rtl = layoutProblems(scene, ledgerWith(["h.png", "headline"]), frame(true), copy);
    expect(rtl).toContainEqual({ field: "user_prompt.headline", message: expect.stringContaining("safe area") });
  });

  test("two texts on top of each other overlap; a ticker may cross the side edges but not the covered foot of 9:16", () => {
    const overlapping = {
      background: asset("bg.png", 1080, 1920),
      layers: [
        { name: "headline", image: asset("h.png", 400, 100), x: 500, y: 800 },
        { name: "subheadline", image: asset("s.png", 400, 100), x: 500, y: 850 },
      ],
    };
    const both = layoutProblems(overlapping, ledgerWith(["h.png", "headline"], ["s.png", "subheadline"]), frame(false), copy);
    expect(both).toContainEqual({ field: "user_prompt.headline", message: expect.stringContaining("overlaps the subheadline") });
    const ledger = ledgerWith(["t.png", "text"]);
    ledger.group("strip.png", { w: 2400, items: [{ image: asset("t.png", 2400, 60), x: 1200, y: 30 }] }, false);
    const ticker = (y: number) => ({ background: asset("bg.png", 1080, 1920), layers: [{ name: "ticker", image: asset("strip.png", 2400, 60), x: 0, y, anchor: [0, 0.5] as [number, number] }] });
    expect(layoutProblems(ticker(1400), ledger, frame(false), copy)).toEqual([]);
    expect(layoutProblems(ticker(1880), ledger, frame(false), copy)).toContainEqual({ field: expect.any(String), message: expect.stringContaining("safe area") });
  });
});
