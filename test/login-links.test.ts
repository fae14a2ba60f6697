// One-time login links: an operator's URL (API or CLI) signs a browser in once, within 15 minutes; a used, expired or
// unknown code goes back to the sign-in page. Two instances on one database racing with one code: one wins.
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_TOKEN, BASE, createPostgresDatabase, onPostgres, startService, tempDir, type TestService } from "./helpers";

const ROOT = join(import.meta.dir, "..");
const opened: TestService[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const svc of opened.splice(0)) await svc.close();
  for (const clean of cleanups.splice(0)) await clean();
});

async function start(env: Record<string, string> = {}) {
  const svc = await startService(env);
  opened.push(svc);
  return svc;
}

async function newLink(t: TestService, accountId: string) {
  const res = await t.json("POST", `/v1/admin/accounts/${accountId}/login_links`, { token: ADMIN_TOKEN });
  expect(res.status).toBe(201);
  return res.body as { object: string; url: string; expires_at: string };
}

/** Follows a login link in-process: where it sends the browser, and the session cookie it sets (if any). */
async function follow(t: TestService, url: string) {
  const res = await t.service.handle(new Request(url));
  return { status: res.status, location: res.headers.get("location"), cookie: res.headers.get("set-cookie")?.split(";")[0] ?? null };
}

test("a login link signs in once: cookie and 303 to /products, then 303 to /sign-in?link=invalid", async () => {
  const t = await start();
  const acct = await t.newAccount();
  const link = await newLink(t, acct.id);
  expect(link.object).toBe("login_link");
  expect(link.url).toMatch(new RegExp(`^${BASE}/studio/login/[A-Za-z0-9_-]{43}$`));
  expect(Date.parse(link.expires_at) - t.clock.now()).toBe(15 * 60_000);
  const first = await follow(t, link.url);
  expect(first).toMatchObject({ status: 303, location: "/products" });
  const session = await t.json("GET", "/studio/session", { headers: { cookie: first.cookie! } });
  expect(session.body).toMatchObject({ kind: "account", account: { id: acct.id } });
  expect((await t.json("GET", "/v1/products", { headers: { cookie: first.cookie! } })).status).toBe(200);
  // The code is in the link's URL: the answer keeps it out of any Referer.
  const used = await t.service.handle(new Request(link.url));
  expect(used.headers.get("referrer-policy")).toBe("no-referrer");
  const second = await follow(t, link.url);
  expect(second).toEqual({ status: 303, location: "/sign-in?link=invalid", cookie: null });
});

test("a login link expires after 15 minutes", async () => {
  const t = await start();
  const acct = await t.newAccount();
  const early = await newLink(t, acct.id);
  const late = await newLink(t, acct.id);
  t.clock.advance(15 * 60_000 - 1000);
  expect((await follow(t, early.url)).location).toBe("/products");
  t.clock.advance(1000);
  expect(await follow(t, late.url)).toEqual({ status: 303, location: "/sign-in?link=invalid", cookie: null });
});

test("an unknown or malformed code, or an unknown account, gets no session", async () => {
  const t = await start();
  const acct = await t.newAccount();
  const link = await newLink(t, acct.id);
  const code = link.url.slice(link.url.lastIndexOf("/") + 1);
  const altered = `${code.slice(0, -1)}${code.endsWith("A") ? "B" : "A"}`;
  // Over 200 characters, or not URL-decodable, is no different: the sign-in page, never a JSON error.
  for (const wrong of [altered, "short", "x".repeat(150), "x".repeat(201), `${code}${"A".repeat(300)}`, "%E0%A4%A", "a%2Fb"]) {
    expect(await follow(t, `${BASE}/studio/login/${wrong}`)).toEqual({ status: 303, location: "/sign-in?link=invalid", cookie: null });
  }
  expect((await t.json("POST", "/v1/admin/accounts/acct_nope/login_links", { token: ADMIN_TOKEN })).status).toBe(404);
  expect((await t.json("POST", `/v1/admin/accounts/${acct.id}/login_links`, { token: "vt_wrong" })).status).toBe(401);
  expect((await follow(t, link.url)).location).toBe("/products");
});

test("two instances on one database racing with one code: exactly one browser is signed in", async () => {
  let env: Record<string, string>;
  if (onPostgres) {
    const pg = await createPostgresDatabase();
    cleanups.push(() => pg.drop());
    env = { VITRIN_DATABASE_URL: pg.url };
  } else {
    const dir = tempDir();
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    env = { VITRIN_DATABASE_URL: `sqlite:${join(dir, "shared.db")}` };
  }
  const a = await start(env);
  const b = await start(env);
  const acct = await a.newAccount();
  for (let round = 0; round < 5; round++) {
    const link = await newLink(b, acct.id);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => follow(i % 2 ? a : b, link.url)));
    expect(results.filter((r) => r.location === "/products")).toHaveLength(1);
    expect(results.filter((r) => r.location === "/sign-in?link=invalid")).toHaveLength(7);
  }
});

test("vitrin accounts login-link ACCOUNT_ID prints a URL that signs in", async () => {
  const t = await start();
  const acct = await t.newAccount();
  const url = t.service.config.databaseUrl;
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: t.dir, VITRIN_DATA_DIR: t.dir, VITRIN_DATABASE_URL: url, VITRIN_PUBLIC_URL: BASE };
  const run = (...args: string[]) => Bun.spawnSync([process.execPath, "run", join(ROOT, "src/main.ts"), ...args], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  const plain = run("accounts", "login-link", acct.id);
  expect(plain.exitCode).toBe(0);
  const printed = plain.stdout.toString().trim();
  expect(printed).toMatch(new RegExp(`^${BASE}/studio/login/[A-Za-z0-9_-]{43}$`));
  const json = JSON.parse(run("accounts", "login-link", acct.id, "--json").stdout.toString());
  expect(json.object).toBe("login_link");
  expect(json.url).toMatch(new RegExp(`^${BASE}/studio/login/[A-Za-z0-9_-]{43}$`));
  expect((await follow(t, printed)).location).toBe("/products");
  expect((await follow(t, json.url)).location).toBe("/products");
  expect(run("accounts", "login-link", "acct_nope").exitCode).not.toBe(0);
});
