// An account's own API tokens (/v1/tokens): listed without their secrets, issued once, revoked; another account's
// token is a 404, never a 403 or a revocation.
import { afterEach, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

test("a new token is shown once, works, and is listed by name and hint but never by its secret", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const made = await t.json("POST", "/v1/tokens", { token: acct.token, body: { name: "CI" } });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ object: "token", name: "CI" });
  expect(made.body.token).toMatch(/^vt_[0-9A-Za-z]{40}$/);
  expect((await t.json("GET", "/v1/products", { token: made.body.token })).status).toBe(200);
  // That use is recorded in the background (token-last-use.test.ts); waiting for it makes the listing below exact.
  await t.service.accounts.tokenUseSettled();
  const list = await t.call("GET", "/v1/tokens", { token: acct.token });
  const text = await list.text();
  expect(text).not.toContain(made.body.token);
  expect(text).not.toContain(acct.token);
  const body = JSON.parse(text);
  expect(body.has_more).toBe(false);
  expect(body.data.map((x: { name: string }) => x.name).sort()).toEqual(["CI", "default"]);
  const ci = body.data.find((x: { id: string }) => x.id === made.body.id);
  expect(ci).toEqual({ id: made.body.id, object: "token", name: "CI", hint: expect.any(String), created_at: expect.any(String), last_used_at: new Date(t.clock.now()).toISOString() });
  expect(ci.hint.startsWith(made.body.token.slice(0, 7))).toBe(true);
});

test("revoking an own token stops it and drops it from the list; a second revoke is 404", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const made = await t.json("POST", "/v1/tokens", { token: acct.token, body: {} });
  const gone = await t.json("DELETE", `/v1/tokens/${made.body.id}`, { token: acct.token });
  expect(gone.body).toEqual({ id: made.body.id, object: "token", deleted: true });
  expect((await t.json("GET", "/v1/products", { token: made.body.token })).status).toBe(401);
  const list = await t.json("GET", "/v1/tokens", { token: acct.token });
  expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(made.body.id);
  expect((await t.json("DELETE", `/v1/tokens/${made.body.id}`, { token: acct.token })).status).toBe(404);
});

test("another account's token cannot be listed or revoked (404), and stays usable", async () => {
  t = await startService();
  const a = await t.newAccount();
  const b = await t.newAccount();
  const bTokens = await t.json("GET", "/v1/tokens", { token: b.token });
  const bId = bTokens.body.data[0].id;
  const aTokens = await t.json("GET", "/v1/tokens", { token: a.token });
  expect(aTokens.body.data.map((x: { id: string }) => x.id)).not.toContain(bId);
  const refused = await t.json("DELETE", `/v1/tokens/${bId}`, { token: a.token });
  expect(refused.status).toBe(404);
  expect(refused.body.code).toBe("not_found");
  expect((await t.json("GET", "/v1/products", { token: b.token })).status).toBe(200);
});

test("the body is strict: an unknown field is a 422; the admin token is no account token here", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const bad = await t.json("POST", "/v1/tokens", { token: acct.token, body: { name: "x", scope: "all" } });
  expect(bad.status).toBe(422);
  expect((await t.json("GET", "/v1/tokens", { token: ADMIN_TOKEN })).status).toBe(401);
});

test("an account holds at most 50 live tokens: the 51st is a 403 until one is revoked", async () => {
  t = await startService();
  const a = await t.newAccount();
  // newAccount's token is the first; 49 more fill the account.
  for (let i = 0; i < 49; i++) expect((await t.json("POST", "/v1/tokens", { token: a.token, body: { name: `app ${i}` } })).status).toBe(201);
  const over = await t.json("POST", "/v1/tokens", { token: a.token, body: { name: "one too many" } });
  expect([over.status, over.body.message]).toEqual([403, "An account has at most 50 live tokens; revoke one first."]);
  const list = (await t.json("GET", "/v1/tokens", { token: a.token })).body;
  expect([list.data.length, list.has_more]).toEqual([50, false]);
  expect((await t.json("POST", `/v1/admin/accounts/${a.id}/tokens`, { token: ADMIN_TOKEN, body: {} })).status).toBe(403);
  const app0 = list.data.find((x: { name: string }) => x.name === "app 0");
  expect((await t.json("DELETE", `/v1/tokens/${app0.id}`, { token: a.token })).status).toBe(200);
  expect((await t.json("POST", "/v1/tokens", { token: a.token, body: { name: "in its place" } })).status).toBe(201);
});
