// 422s from the request schemas speak plainly: a whole number, a field to change, a blank name, a file, a length in
// characters, a lowercase currency code, and for a union what the field takes, rather than TypeBox's own words.
import { afterEach, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, BASE, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

async function setup() {
  t = await startService();
  return t.newAccount({ credits: 10 });
}

const details = async (method: string, path: string, token: string, body: unknown) => {
  const res = await t.json(method, path, { token, body });
  expect(res.status).toBe(422);
  return res.body.details as { field: string; message: string }[];
};

describe("validation messages", () => {
  test("a fraction where a whole number goes: must be a whole number", async () => {
    await setup();
    expect(await details("POST", "/v1/admin/accounts", ADMIN_TOKEN, { credits: 1.5 })).toEqual([{ field: "credits", message: "must be a whole number" }]);
  });

  test("an empty PATCH: give at least one field to change", async () => {
    const acct = await setup();
    expect(await details("PATCH", `/v1/admin/accounts/${acct.id}`, ADMIN_TOKEN, {})).toEqual([{ field: "body", message: "give at least one field to change" }]);
    expect(await details("PATCH", "/v1/products/prod_nope", acct.token, {})).toEqual([{ field: "body", message: "give at least one field to change" }]);
  });

  test("a blank or empty product name: must not be blank, said once", async () => {
    const acct = await setup();
    for (const name of ["   ", ""]) {
      const got = await details("POST", "/v1/products", acct.token, { name, image_url: "https://shop.example/a.png" });
      expect(got).toEqual([{ field: "name", message: "must not be blank" }]);
    }
  });

  test("lengths are said in characters", async () => {
    const acct = await setup();
    expect(await details("PATCH", `/v1/admin/accounts/${acct.id}`, ADMIN_TOKEN, { name: "x".repeat(201) })).toEqual([
      { field: "name", message: "must be at most 200 characters" },
    ]);
    expect(await details("PATCH", `/v1/admin/accounts/${acct.id}`, ADMIN_TOKEN, { language: "x" })).toEqual([
      { field: "language", message: "must be at least 2 characters" },
    ]);
  });

  test("an uppercase currency on a top-up: a lowercase three-letter code", async () => {
    const acct = await setup();
    expect(await details("POST", "/v1/balance/top-up", acct.token, { amount: 1000, currency: "USD" })).toEqual([
      { field: "currency", message: "must be a lowercase three-letter currency code, like usd" },
    ]);
  });

  test("text where a product form takes a file: must be a file", async () => {
    const acct = await setup();
    const form = new FormData();
    form.set("name", "Mug");
    form.set("image", "not a file");
    const res = await t.service.handle(new Request(`${BASE}/v1/products`, { method: "POST", headers: { authorization: `Bearer ${acct.token}` }, body: form }));
    expect(res.status).toBe(422);
    expect(((await res.json()) as { details: unknown }).details).toEqual([{ field: "image", message: "must be a file" }]);
  });

  test("a union without fixed choices says what it takes: \"\" for a webhook URL is not a URL", async () => {
    const acct = await setup();
    expect(await details("PUT", "/v1/webhooks/endpoint", acct.token, { url: "" })).toEqual([{ field: "url", message: "must be a URL or null" }]);
  });
});
