// Studio sign-in: a token traded for an HttpOnly session cookie, the cookie standing in for the bearer token on /v1
// (its writes need X-CSRF-Token), sign-out and token revocation ending the session on the server, operator sessions,
// and the Secure flag behind https. In-process requests, except where the socket's peer is the subject.
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_TOKEN, createPostgresDatabase, freePort, onPostgres, startService, tempDir, type TestService } from "./helpers";

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** Signs in with a token: the cookie pair to send back, the Set-Cookie header itself, and the session body. */
async function signIn(svc: TestService, token: string) {
  const res = await svc.json("POST", "/studio/session", { body: { token } });
  expect(res.status).toBe(200);
  const setCookie = res.headers.get("set-cookie")!;
  return { cookie: setCookie.split(";")[0], setCookie, session: res.body };
}

test("signing in with an account token sets an HttpOnly, SameSite=Strict session cookie and names the account", async () => {
  t = await startService();
  const acct = await t.newAccount({ language: "tr" });
  const { cookie, setCookie, session } = await signIn(t, acct.token);
  expect(setCookie).toMatch(/^vitrin_session=[A-Za-z0-9_-]{43}; /);
  expect(setCookie).toContain("HttpOnly");
  expect(setCookie).toContain("SameSite=Strict");
  expect(setCookie).toContain("Path=/");
  expect(setCookie).not.toContain("Secure");
  expect(session).toMatchObject({ object: "studio_session", kind: "account", account: { id: acct.id, language: "tr" } });
  expect(session.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  // The token it was opened with, so Studio can warn before that token is revoked.
  const tokens = (await t.json("GET", "/v1/tokens", { token: acct.token })).body.data;
  expect(session.token_id).toBe(tokens[0].id);
  // The cookie never carries the token itself, and GET /studio/session gives the same session back.
  expect(cookie).not.toContain(acct.token);
  const again = await t.json("GET", "/studio/session", { headers: { cookie } });
  expect(again.body).toEqual(session);
});

test("a wrong token gets 401 and no cookie; no cookie at all is 401 on GET /studio/session", async () => {
  t = await startService();
  const res = await t.json("POST", "/studio/session", { body: { token: "vt_not-a-real-token" } });
  expect(res.status).toBe(401);
  expect(res.body.code).toBe("unauthorized");
  expect(res.headers.get("set-cookie")).toBeNull();
  expect((await t.json("GET", "/studio/session")).status).toBe(401);
  expect((await t.json("GET", "/studio/session", { headers: { cookie: "vitrin_session=forged" } })).status).toBe(401);
});

test("the cookie works on GET /v1 routes; a cookie write needs X-CSRF-Token (403 csrf_failed without, 2xx with)", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const { cookie, session } = await signIn(t, acct.token);
  expect((await t.json("GET", "/v1/products", { headers: { cookie } })).status).toBe(200);
  const body = { name: "Ops token" };
  const refused = await t.json("POST", "/v1/tokens", { headers: { cookie }, body });
  expect(refused.status).toBe(403);
  expect(refused.body.code).toBe("csrf_failed");
  const wrong = await t.json("POST", "/v1/tokens", { headers: { cookie, "x-csrf-token": "x".repeat(43) }, body });
  expect(wrong.status).toBe(403);
  const made = await t.json("POST", "/v1/tokens", { headers: { cookie, "x-csrf-token": session.csrf_token }, body });
  expect(made.status).toBe(201);
  // Only the session's own writes were refused: the token list shows the one made with the header.
  const list = await t.json("GET", "/v1/tokens", { headers: { cookie } });
  expect(list.body.data.filter((x: { name: string }) => x.name === "Ops token")).toHaveLength(1);
});

test("bearer requests are unchanged: no CSRF header needed, and the bearer token wins over a cookie", async () => {
  t = await startService();
  const a = await t.newAccount();
  const b = await t.newAccount();
  const { cookie } = await signIn(t, b.token);
  const made = await t.json("POST", "/v1/tokens", { token: a.token, body: { name: "from bearer" } });
  expect(made.status).toBe(201);
  const mixed = await t.json("GET", "/v1/tokens", { token: a.token, headers: { cookie } });
  expect(mixed.body.data.map((x: { name: string }) => x.name)).toContain("from bearer");
  const onlyB = await t.json("GET", "/v1/tokens", { headers: { cookie } });
  expect(onlyB.body.data.map((x: { name: string }) => x.name)).not.toContain("from bearer");
});

test("signing out ends the session on the server: the old cookie is refused afterwards", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const { cookie, session } = await signIn(t, acct.token);
  expect((await t.json("DELETE", "/studio/session", { headers: { cookie } })).status).toBe(403);
  const out = await t.call("DELETE", "/studio/session", { headers: { cookie, "x-csrf-token": session.csrf_token } });
  expect(out.status).toBe(204);
  expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
  expect((await t.json("GET", "/studio/session", { headers: { cookie } })).status).toBe(401);
  expect((await t.json("GET", "/v1/products", { headers: { cookie } })).status).toBe(401);
});

test("revoking the token that opened a session ends the session", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const { cookie } = await signIn(t, acct.token);
  const tokens = await t.json("GET", "/v1/tokens", { token: acct.token });
  const revoked = await t.json("DELETE", `/v1/admin/tokens/${tokens.body.data[0].id}`, { token: ADMIN_TOKEN });
  expect(revoked.status).toBe(200);
  expect((await t.json("GET", "/v1/products", { headers: { cookie } })).status).toBe(401);
  expect((await t.json("GET", "/studio/session", { headers: { cookie } })).status).toBe(401);
});

test("a session ends after 2 idle hours, and after 12 hours however busy", async () => {
  t = await startService();
  const acct = await t.newAccount();
  const idle = await signIn(t, acct.token);
  const busy = await signIn(t, acct.token);
  for (let hour = 1; hour <= 11; hour++) {
    t.clock.advance(3600_000);
    expect((await t.json("GET", "/v1/products", { headers: { cookie: busy.cookie } })).status).toBe(200);
    if (hour === 2) expect((await t.json("GET", "/v1/products", { headers: { cookie: idle.cookie } })).status).toBe(401);
  }
  t.clock.advance(3600_000);
  expect((await t.json("GET", "/v1/products", { headers: { cookie: busy.cookie } })).status).toBe(401);
});

test("an operator's session passes the admin routes (writes with CSRF) but not the account routes", async () => {
  t = await startService();
  const { cookie, session } = await signIn(t, ADMIN_TOKEN);
  expect(session).toMatchObject({ kind: "admin", account: null });
  expect((await t.json("GET", "/v1/admin/accounts", { headers: { cookie } })).status).toBe(200);
  expect((await t.json("GET", "/v1/admin/jobs", { headers: { cookie } })).status).toBe(200);
  expect((await t.json("POST", "/v1/admin/accounts", { headers: { cookie }, body: {} })).status).toBe(403);
  const made = await t.json("POST", "/v1/admin/accounts", { headers: { cookie, "x-csrf-token": session.csrf_token }, body: { name: "Shop" } });
  expect(made.status).toBe(201);
  expect((await t.json("GET", "/v1/products", { headers: { cookie } })).status).toBe(401);
  // An account's session is no operator's.
  const acct = await signIn(t, made.body.token);
  expect((await t.json("GET", "/v1/admin/accounts", { headers: { cookie: acct.cookie } })).status).toBe(401);
});

test("the cookie is Secure when the request came over https, or through a trusted proxy saying so; not from anyone else", async () => {
  const port = freePort();
  t = await startService({ VITRIN_TRUSTED_PROXIES: "127.0.0.1" });
  const acct = await t.newAccount();
  const plain = await t.call("POST", "/studio/session", { body: { token: acct.token } });
  expect(plain.headers.get("set-cookie")).not.toContain("Secure");
  const direct = await t.service.handle(
    new Request("https://vitrin.test/studio/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: acct.token }) }),
  );
  expect(direct.headers.get("set-cookie")).toContain("; Secure");
  // Over a socket from 127.0.0.1 (a trusted proxy) X-Forwarded-Proto counts; in-process there is no peer to trust.
  t.service.listen(port, "127.0.0.1");
  const post = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${port}/studio/session`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ token: acct.token }) });
  expect((await post({ "x-forwarded-proto": "https" })).headers.get("set-cookie")).toContain("; Secure");
  expect((await post({})).headers.get("set-cookie")).not.toContain("Secure");
  const untrusted = await t.call("POST", "/studio/session", { body: { token: acct.token }, headers: { "x-forwarded-proto": "https" } });
  expect(untrusted.headers.get("set-cookie")).not.toContain("Secure");
});

test("wrong tokens at sign-in count toward the address's auth throttle: past it, 429 even for a right token", async () => {
  const port = freePort();
  t = await startService({ VITRIN_AUTH_FAILURES_PER_MINUTE: "3" });
  const acct = await t.newAccount();
  t.service.listen(port, "127.0.0.1");
  const post = (token: string) =>
    fetch(`http://127.0.0.1:${port}/studio/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
  for (let i = 0; i < 3; i++) expect((await post(`vt_guess${i}`)).status).toBe(401);
  const blocked = await post(acct.token);
  expect(blocked.status).toBe(429);
  expect(blocked.headers.get("set-cookie")).toBeNull();
  t.clock.advance(61_000);
  expect((await post(acct.token)).status).toBe(200);
});

test("sessions live in the database: another instance accepts them, and one with another admin token ends operators'", async () => {
  const pg = onPostgres ? await createPostgresDatabase() : null;
  const dir = tempDir();
  const shared = { VITRIN_DATABASE_URL: pg ? pg.url : `sqlite:${join(dir, "shared.db")}` };
  t = await startService(shared);
  const other = await startService({ ...shared, VITRIN_ADMIN_TOKEN: "another-admin-token-0123456789abcdef" });
  try {
    const acct = await t.newAccount();
    const account = await signIn(t, acct.token);
    const operator = await signIn(t, ADMIN_TOKEN);
    expect((await other.json("GET", "/v1/products", { headers: { cookie: account.cookie } })).status).toBe(200);
    expect((await other.json("GET", "/v1/admin/accounts", { headers: { cookie: operator.cookie } })).status).toBe(401);
    expect((await t.json("GET", "/v1/admin/accounts", { headers: { cookie: operator.cookie } })).status).toBe(200);
  } finally {
    await other.close();
    await t.close();
    t = null;
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
