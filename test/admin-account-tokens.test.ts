// GET /v1/admin/accounts/:id/tokens: the operator sees an account's live tokens (never their secrets), revoked ones
// drop out, an unknown account is a 404, and an account token cannot use it.
import { afterEach, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

type Listed = { id: string; name: string; hint: string };

test("the operator lists an account's live tokens by name and hint, without their secrets", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const made = await t.json("POST", `/v1/admin/accounts/${acct.id}/tokens`, { token: ADMIN_TOKEN, body: { name: "CI" } });
  expect(made.status).toBe(201);
  const res = await t.call("GET", `/v1/admin/accounts/${acct.id}/tokens`, { token: ADMIN_TOKEN });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).not.toContain(made.body.token);
  expect(text).not.toContain(acct.token);
  const body = JSON.parse(text);
  expect(body.has_more).toBe(false);
  // Both may carry the same millisecond, so the order between them is not asserted.
  expect(body.data.map((x: Listed) => x.name).sort()).toEqual(["CI", "default"]);
  const ci = body.data.find((x: Listed) => x.id === made.body.id);
  expect(ci).toEqual({ id: made.body.id, object: "token", name: "CI", hint: expect.any(String), created_at: expect.any(String), last_used_at: null });
  expect(ci.hint.startsWith(made.body.token.slice(0, 7))).toBe(true);
});

test("a token the operator revokes leaves the list and stops working; other accounts' tokens are not listed", async () => {
  t = await startService();
  const a = await t.newAccount();
  const b = await t.newAccount();
  const made = await t.json("POST", `/v1/admin/accounts/${a.id}/tokens`, { token: ADMIN_TOKEN, body: {} });
  expect((await t.json("DELETE", `/v1/admin/tokens/${made.body.id}`, { token: ADMIN_TOKEN })).status).toBe(200);
  expect((await t.json("GET", "/v1/products", { token: made.body.token })).status).toBe(401);
  const listA = await t.json("GET", `/v1/admin/accounts/${a.id}/tokens`, { token: ADMIN_TOKEN });
  const listB = await t.json("GET", `/v1/admin/accounts/${b.id}/tokens`, { token: ADMIN_TOKEN });
  expect(listA.body.data.map((x: Listed) => x.id)).not.toContain(made.body.id);
  expect(listA.body.data).toHaveLength(1);
  expect(listB.body.data).toHaveLength(1);
  expect(listB.body.data[0].id).not.toBe(listA.body.data[0].id);
});

test("an unknown account is a 404 and an account token is refused", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const missing = await t.json("GET", "/v1/admin/accounts/acct_nosuchaccount/tokens", { token: ADMIN_TOKEN });
  expect(missing.status).toBe(404);
  expect(missing.body.code).toBe("not_found");
  const refused = await t.json("GET", `/v1/admin/accounts/${acct.id}/tokens`, { token: acct.token });
  expect([401, 403]).toContain(refused.status);
});
