// The language of a video or estimate: one the template has words for (region and case variants of it included),
// else a 422 naming `language` and listing the supported ones, with nothing charged and nothing queued.
import { afterEach, describe, expect, test } from "bun:test";
import { productPhoto, startService, type TestService } from "./helpers";

const SUPPORTED = ["en", "tr", "de", "fr", "es", "ar", "ja"];

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function setup(account: { credits?: number; language?: string } = {}) {
  t = await startService();
  const acct = await t.newAccount({ credits: 20, ...account });
  const image = `data:image/png;base64,${Buffer.from(await productPhoto("png", 64, 64)).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: image, dekupe: false } });
  expect(product.status).toBe(201);
  return { acct, productId: product.body.id as string };
}

const balance = async (token: string) => (await t!.json("GET", "/v1/balance", { token })).body.credits as number;

function expectLanguage422(res: { status: number; body: any }) {
  expect(res.status).toBe(422);
  expect(res.body.error).toBe("Validation failed");
  expect(res.body.details).toEqual([{ field: "language", message: expect.any(String) }]);
  expect(res.body.supported_languages).toEqual(SUPPORTED);
  for (const code of SUPPORTED) expect(res.body.message).toContain(code);
}

describe("language on POST /v1/videos", () => {
  test("an unsupported language is a 422 naming language; nothing is charged or queued", async () => {
    const { acct, productId } = await setup();
    const res = await t!.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: productId, language: "xx" } });
    expectLanguage422(res);
    expect(await balance(acct.token)).toBe(20);
    expect((await t!.json("GET", "/v1/videos", { token: acct.token })).body.data).toEqual([]);
    expect(await t!.service.jobs.tick()).toBe(0);
    // A region or case variant of a supported language is accepted, kept in canonical form, and charged.
    const regional = await t!.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: productId, language: "TR-tr" } });
    expect(regional.status).toBe(202);
    expect(regional.body.language).toBe("tr-TR");
    expect(await balance(acct.token)).toBe(20 - regional.body.credits_reserved);
  });

  test("a malformed tag is a 422 listing the supported languages too", async () => {
    const { acct, productId } = await setup();
    const res = await t!.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: productId, language: "not a tag" } });
    expectLanguage422(res);
  });

  test("an account language no template speaks is not silently English: 422 asking for language", async () => {
    const { acct, productId } = await setup({ language: "pt-BR" });
    const res = await t!.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: productId } });
    expectLanguage422(res);
    expect(res.body.details[0].message).toContain("account's language pt-BR");
    expect(await balance(acct.token)).toBe(20);
    const chosen = await t!.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: productId, language: "es" } });
    expect(chosen.status).toBe(202);
  });
});

describe("language on POST /v1/videos/estimate", () => {
  test("an unsupported language is a 422 naming language; a supported regional tag is estimated in it", async () => {
    const { acct, productId } = await setup();
    const estimate = (language: string) =>
      t!.json("POST", "/v1/videos/estimate", { token: acct.token, body: { template_id: "spotlight", product_id: productId, language } });
    expectLanguage422(await estimate("ko"));
    const regional = await estimate("de-CH");
    expect(regional.status).toBe(200);
    expect(regional.body.language).toBe("de-CH");
  });
});
