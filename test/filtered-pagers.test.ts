// src/db's filteredPagers, the pagers of a list with optional equality filters (videos by status and product, top-ups
// by status): each combination of the filters asked for narrows the page, a cursor that has left the filter still
// marks the place, and one outside the scope is a 422. On the suite's database (VITRIN_TEST_DATABASE=postgres too).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { filteredPagers, type PageQuery } from "../src/db";
import type { TopUpRow } from "../src/billing";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
let account: string;
let other: string;
/** Oldest first: usd pending, eur pending, usd paid, eur pending. */
const ids: string[] = [];
let page: (filters: [string?, string?], query?: PageQuery, scope?: string) => Promise<string[]>;

beforeAll(async () => {
  t = await startService();
  const a = await t.newAccount();
  account = a.id;
  other = (await t.newAccount()).id;
  for (const [amount, currency] of [[1000, "usd"], [1000, "eur"], [1500, "usd"], [2000, "eur"]] as const) {
    const res = await t.json("POST", "/v1/balance/top-up", { token: a.token, body: { amount, currency } });
    ids.push(res.body.id);
    t.clock.advance(1000);
  }
  expect((await t.json("POST", `/v1/admin/top-ups/${ids[2]}/complete`, { token: ADMIN_TOKEN })).status).toBe(200);
  const { db } = t.service;
  const { topUps } = db.schema;
  const pagers = filteredPagers<TopUpRow>(db.read, topUps, [topUps.accountId], [topUps.status, topUps.currency], "top-up");
  page = async (filters, query = {}, scope = account) => (await pagers([scope], filters, query)).data.map((r) => r.id);
});
afterAll(() => t?.close());

test("each combination of the filters asked for narrows the page; none asked for lists all, newest first", async () => {
  expect(await page([])).toEqual([ids[3], ids[2], ids[1], ids[0]]);
  expect(await page(["pending"])).toEqual([ids[3], ids[1], ids[0]]);
  expect(await page([undefined, "usd"])).toEqual([ids[2], ids[0]]);
  expect(await page(["pending", "usd"])).toEqual([ids[0]]);
  // One filter alone and the other alone are different pagers, asked for in any order.
  expect(await page(["paid"])).toEqual([ids[2]]);
  expect(await page([undefined, "eur"], { limit: 1 })).toEqual([ids[3]]);
});

test("a cursor that has left the filter (a top-up paid) still marks the place; one of another scope is a 422", async () => {
  expect(await page(["pending", "usd"], { starting_after: ids[2] })).toEqual([ids[0]]);
  expect(await page(["pending"], { ending_before: ids[2] })).toEqual([ids[3]]);
  await expect(page([], { starting_after: ids[0] }, other)).rejects.toMatchObject({ status: 422, message: `starting_after: no top-up with id ${ids[0]}` });
});
