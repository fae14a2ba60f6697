// GET /v1/balance/top-up-options: what a client shows before it starts a top-up (the amounts allowed, the currencies
// and the credits each buys), read from the operator's settings and agreeing with what a top-up then books.
import { afterEach, expect, test } from "bun:test";
import { startService, type TestService } from "./helpers";

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

test("by default: 10.00 to 999,999.99, four currencies with their rates", async () => {
  t = await startService();
  const a = await t.newAccount();
  const res = await t.json("GET", "/v1/balance/top-up-options", { token: a.token });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    object: "top_up_options",
    min_amount: 1000,
    max_amount: 99999999,
    currencies: [
      { currency: "usd", credits_per_unit: 10 },
      { currency: "eur", credits_per_unit: 11 },
      { currency: "try", credits_per_unit: 0.3 },
      { currency: "gbp", credits_per_unit: 12 },
    ],
  });
});

test("the credits a top-up books are floor(amount × credits_per_unit / 100) in every currency", async () => {
  t = await startService();
  const a = await t.newAccount();
  const { body } = await t.json("GET", "/v1/balance/top-up-options", { token: a.token });
  for (const { currency, credits_per_unit } of body.currencies as { currency: string; credits_per_unit: number }[]) {
    for (const amount of [1000, 1250, 3333]) {
      const top = await t.json("POST", "/v1/balance/top-up", { token: a.token, body: { amount, currency } });
      expect(top.status).toBe(201);
      expect(top.body.credits).toBe(Math.floor((amount * credits_per_unit) / 100));
    }
  }
});

test("follows VITRIN_CURRENCIES, VITRIN_CREDIT_RATES and VITRIN_TOP_UP_MAX", async () => {
  t = await startService({ VITRIN_CURRENCIES: "eur,chf", VITRIN_CREDIT_RATES: "eur=2.5,chf=3", VITRIN_TOP_UP_MAX: "50000" });
  const a = await t.newAccount();
  const { body } = await t.json("GET", "/v1/balance/top-up-options", { token: a.token });
  expect(body.max_amount).toBe(50000);
  expect(body.currencies).toEqual([
    { currency: "eur", credits_per_unit: 2.5 },
    { currency: "chf", credits_per_unit: 3 },
  ]);
});

test("needs an account's token, and refuses query parameters", async () => {
  t = await startService();
  const a = await t.newAccount();
  expect((await t.json("GET", "/v1/balance/top-up-options")).status).toBe(401);
  const res = await t.json("GET", "/v1/balance/top-up-options?currency=usd", { token: a.token });
  expect(res.status).toBe(422);
  expect(res.body.details.map((d: { field: string }) => d.field)).toContain("currency");
});
