// GET /v1/balance/top-ups: an account's top-ups newest first in cursor pages, of one status when asked (a payer's
// pending top-up can be found again after the tab that started it is closed), never another account's.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
let token: string;
let ids: string[] = [];
beforeAll(async () => {
  t = await startService();
  token = (await t.newAccount()).token;
  for (const amount of [1000, 1500, 2000]) {
    const res = await t.json("POST", "/v1/balance/top-up", { token, body: { amount, currency: "usd" } });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
    t.clock.advance(1000);
  }
  // The middle one is paid: it leaves the pending list.
  expect((await t.json("POST", `/v1/admin/top-ups/${ids[1]}/complete`, { token: ADMIN_TOKEN })).status).toBe(200);
});
afterAll(() => t.close());

test("every top-up, newest first, as the top-up object", async () => {
  const res = await t.json("GET", "/v1/balance/top-ups", { token });
  expect(res.status).toBe(200);
  expect(res.body.has_more).toBe(false);
  expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([...ids].reverse());
  expect(res.body.data[0]).toMatchObject({ object: "top_up", amount: 2000, currency: "usd", status: "pending", platform: "manual" });
});

test("status=pending lists only those still waiting for their payment", async () => {
  const res = await t.json("GET", "/v1/balance/top-ups?status=pending", { token });
  expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[0]]);
  const paid = await t.json("GET", "/v1/balance/top-ups?status=paid", { token });
  expect(paid.body.data.map((x: { id: string }) => x.id)).toEqual([ids[1]]);
});

test("pages by cursor: limit, has_more and starting_after", async () => {
  const first = await t.json("GET", "/v1/balance/top-ups?limit=2", { token });
  expect(first.body.data).toHaveLength(2);
  expect(first.body.has_more).toBe(true);
  const rest = await t.json("GET", `/v1/balance/top-ups?limit=2&starting_after=${first.body.data[1].id}`, { token });
  expect(rest.body.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
  expect(rest.body.has_more).toBe(false);
  // A cursor that has left the status asked for still marks the place.
  const after = await t.json("GET", `/v1/balance/top-ups?status=pending&starting_after=${ids[1]}`, { token });
  expect(after.body.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
});

test("another account sees none of them; a bad status or an unknown parameter is a 422 naming it", async () => {
  const other = (await t.newAccount()).token;
  expect((await t.json("GET", "/v1/balance/top-ups", { token: other })).body.data).toEqual([]);
  const bad = await t.json("GET", "/v1/balance/top-ups?status=open", { token });
  expect(bad.status).toBe(422);
  expect(JSON.stringify(bad.body)).toContain("status");
  const unknown = await t.json("GET", "/v1/balance/top-ups?currency=usd", { token });
  expect(unknown.status).toBe(422);
  expect(JSON.stringify(unknown.body)).toContain("currency");
});
