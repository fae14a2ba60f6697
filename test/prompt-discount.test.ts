// An old price is the price before a discount: a template with both `price` and `old_price` refuses an old price
// without the price, or one (both numbers) not above it, as a 422 naming user_prompt.old_price, so no video strikes
// through a lower price than the "new" one under a sale badge; nothing is charged.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadTemplates } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";
import { productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
let token: string;
let productId: string;
beforeAll(async () => {
  t = await startService();
  ({ token } = await t.newAccount({ credits: 20 }));
  const image = `data:image/png;base64,${Buffer.from(await productPhoto("png", 64, 64)).toString("base64")}`;
  productId = (await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false } })).body.id;
});
afterAll(() => t.close());

const registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
const check = (id: string, prompt: Record<string, unknown>) => registry.get(id)!.validatePrompt(prompt);

describe("old_price beside price", () => {
  test("an old price above the price, as numbers or as text, is accepted", () => {
    for (const id of ["flash-sale", "showcase"]) {
      expect(check(id, { price: 24.9, old_price: 32 })).toEqual({ ok: true });
      expect(check(id, { price: "24,90 €", old_price: "32 €" })).toEqual({ ok: true });
      expect(check(id, { price: 24.9 })).toEqual({ ok: true });
    }
  });

  test("an old price at or below the price is refused, naming old_price and the price", () => {
    for (const [price, old] of [[40, 32], [32, 32]]) {
      const res = check("flash-sale", { price, old_price: old });
      expect(res).toEqual({ ok: false, problems: [{ field: "old_price", message: expect.stringContaining(`must be more than price (${price})`) }] });
    }
  });

  test("an old price without the price is refused instead of dropped", () => {
    expect(check("showcase", { old_price: 32 })).toEqual({ ok: false, problems: [{ field: "old_price", message: expect.stringContaining("needs price") }] });
  });

  test("a price as text longer than 24 characters is refused, naming the limit", () => {
    const res = check("showcase", { price: "Only today: 24,90 € instead of 32 €" });
    expect(res).toEqual({ ok: false, problems: [{ field: "price", message: "must be a number from 0 to 1000000000, or a text of 1 to 24 characters" }] });
  });

  test("the API answers 422 on user_prompt.old_price for an estimate and a video, and charges nothing", async () => {
    const body = { template_id: "flash-sale", product_id: productId, user_prompt: { price: 40, old_price: 32 } };
    for (const path of ["/v1/videos/estimate", "/v1/videos"]) {
      const res = await t.json("POST", path, { token, body });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ field: "user_prompt.old_price", message: expect.stringContaining("must be more than price (40)") }]);
    }
    expect((await t.json("GET", "/v1/balance", { token })).body.credits).toBe(20);
    const fine = await t.json("POST", "/v1/videos/estimate", { token, body: { ...body, user_prompt: { price: 24.9, old_price: 32 } } });
    expect(fine.status).toBe(200);
  });
});
