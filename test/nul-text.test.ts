// U+0000 in a path, query or JSON body is a 422 naming where it was, on both databases: PostgreSQL cannot store or
// compare it, so without the check such requests answered 500 there.
import { afterEach, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

test("a NUL character in a path id, a query value or a body string is refused with 422 naming the field", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const cases: [string, string, unknown, string, string][] = [
    ["GET", "/v1/products/a%00b", undefined, acct.token, "id"],
    ["GET", "/v1/products?starting_after=a%00b", undefined, acct.token, "starting_after"],
    ["PUT", "/v1/webhooks/endpoint", { url: "http://127.0.0.1:1/a\u0000b" }, acct.token, "url"],
    ["POST", "/v1/admin/accounts", { name: "a\u0000b" }, ADMIN_TOKEN, "name"],
    ["POST", `/v1/admin/accounts/${acct.id}/credits`, { amount: 5, description: "a\u0000b" }, ADMIN_TOKEN, "description"],
  ];
  for (const [method, path, body, token, field] of cases) {
    const res = await t.json(method, path, { token, body });
    expect([method, path, res.status]).toEqual([method, path, 422]);
    expect(res.body.details).toEqual([{ field, message: "must not contain the NUL character (U+0000)" }]);
  }
  // Nothing was booked by the refused grant.
  expect((await t.json("GET", "/v1/balance", { token: acct.token })).body.credits).toBe(0);
});
