// Money and credit amounts a caller sends (top-ups, credit grants, opening credits) are safe integers within their
// maximum, else a 422 naming the field; and no ledger entry takes a balance past what a number holds exactly.
import { afterEach, describe, expect, test } from "bun:test";
import { book } from "../src/billing";
import { MAX_CREDIT_GRANT } from "../src/billing/amounts";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** POSTs the JSON text as written, so numbers JSON.stringify would change (9007199254740993) reach the server. */
const rawPost = (path: string, token: string, json: string) =>
  t!.json("POST", path, { token, raw: json, headers: { "content-type": "application/json" } });

function expect422(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(422);
  expect(res.body.error).toBe("Validation failed");
  expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
}

describe("top-up amount", () => {
  test.each([
    ["1e308", '{"amount":1e308,"currency":"usd"}'],
    ["9007199254740993 (read as 2^53)", '{"amount":9007199254740993,"currency":"usd"}'],
    ["2^53 - 1, safe but above the maximum", '{"amount":9007199254740991,"currency":"usd"}'],
    ["one above the default maximum", '{"amount":100000000,"currency":"usd"}'],
  ])("%s is a 422 naming amount", async (_label, json) => {
    t = await startService();
    const a = await t.newAccount();
    expect422(await rawPost("/v1/balance/top-up", a.token, json), "amount");
  });

  test("VITRIN_TOP_UP_MAX is the bound: at it a top-up completes with exact credits, one above is a 422", async () => {
    t = await startService({ VITRIN_TOP_UP_MAX: "250000" });
    const a = await t.newAccount();
    expect422(await rawPost("/v1/balance/top-up", a.token, '{"amount":250001,"currency":"usd"}'), "amount");
    const ok = await rawPost("/v1/balance/top-up", a.token, '{"amount":250000,"currency":"usd"}');
    expect(ok.status).toBe(201);
    expect(ok.body.credits).toBe(25_000); // 2,500.00 USD at 10 credits per dollar
    const done = await t.json("POST", `/v1/admin/top-ups/${ok.body.id}/complete`, { token: ADMIN_TOKEN });
    expect(done.status).toBe(200);
    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(25_000);
  });

  test("a rate that would buy more credits than a number holds is a 422, not a pending top-up", async () => {
    t = await startService({ VITRIN_TOP_UP_MAX: "1000000000000", VITRIN_CURRENCIES: "usd", VITRIN_CREDIT_RATES: "usd=1000000" });
    const a = await t.newAccount();
    expect422(await rawPost("/v1/balance/top-up", a.token, '{"amount":1000000000000,"currency":"usd"}'), "amount");
  });

  test("VITRIN_TOP_UP_MAX defaults to 99999999 (999,999.99) and takes only whole numbers from 1000", async () => {
    const { loadConfig } = await import("../src/config");
    expect(loadConfig({}).topUpMax).toBe(99_999_999);
    expect(loadConfig({ VITRIN_TOP_UP_MAX: "500000" }).topUpMax).toBe(500_000);
    expect(() => loadConfig({ VITRIN_TOP_UP_MAX: "1e9" })).toThrow(/VITRIN_TOP_UP_MAX/);
    expect(() => loadConfig({ VITRIN_TOP_UP_MAX: "999" })).toThrow(/VITRIN_TOP_UP_MAX/);
  });
});

describe("credit grants and opening credits", () => {
  test("a grant outside ±the maximum is a 422 naming amount that books nothing; the maximum itself is booked", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 5 });
    for (const amount of [String(2 ** 52), String(-(2 ** 52)), String(MAX_CREDIT_GRANT + 1), "9007199254740993", "1e308"]) {
      expect422(await rawPost(`/v1/admin/accounts/${a.id}/credits`, ADMIN_TOKEN, `{"amount":${amount}}`), "amount");
    }
    expect((await t.json("GET", "/v1/balance/transactions", { token: a.token })).body.data).toHaveLength(1);
    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(5);
    const max = await rawPost(`/v1/admin/accounts/${a.id}/credits`, ADMIN_TOKEN, `{"amount":${MAX_CREDIT_GRANT}}`);
    expect(max.status).toBe(201);
    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(MAX_CREDIT_GRANT + 5);
  });

  test("opening credits above the maximum are a 422 naming credits", async () => {
    t = await startService();
    const res = await rawPost("/v1/admin/accounts", ADMIN_TOKEN, `{"credits":${2 ** 52}}`);
    expect422(res, "credits");
    expect((await t.json("GET", "/v1/admin/accounts", { token: ADMIN_TOKEN })).body.data).toEqual([]);
  });
});

describe("the ledger", () => {
  test("an entry that would take a balance past 2^53 - 1 is refused and leaves it unchanged", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 10 });
    const { db, clock } = t.service;
    const entry = (amount: number) => ({ accountId: a.id, amount, type: "grant" as const, description: "test", platform: "system", at: clock.now() });
    await expect(db.tx((tx) => book(db.schema, tx, entry(Number.MAX_SAFE_INTEGER - 5)))).rejects.toMatchObject({ status: 422 });
    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(10);
    // Up to the last exact integer is fine.
    await db.tx((tx) => book(db.schema, tx, entry(Number.MAX_SAFE_INTEGER - 10)));
    expect((await t.json("GET", "/v1/balance", { token: a.token })).body.credits).toBe(Number.MAX_SAFE_INTEGER);
    expect((await t.service.billing.ledgerCheck()).mismatches).toEqual([]);
  });
});
