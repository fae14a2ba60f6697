// Authentication: tokens count only in the `Authorization: Bearer` header, and failed authentication is throttled per
// client address (429 with Retry-After) without slowing valid tokens from other addresses; failures show in /metrics.
import { afterEach, describe, expect, test } from "bun:test";
import { request as httpRequest } from "node:http";
import { AuthThrottle } from "../src/http/auth-throttle";
import { clientAddress, throttleKey, trustedProxyList } from "../src/http/client-address";
import { ManualClock } from "../src/kernel";
import { loadConfig } from "../src/config";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: any };

/** A GET over real HTTP from a chosen loopback source address (Bun's fetch cannot pick one; node:http can). */
function getFrom(localAddress: string, port: number, path: string, token?: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        localAddress,
        headers: { ...headers, ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Serves the test's service on a loopback port (only 127.0.0.1: the other loopback addresses are clients). */
function serve(t: TestService): number {
  return t.service.listen(0, "127.0.0.1").port!;
}

async function metricValue(t: TestService, guard: string, reason: string): Promise<number> {
  const text = await (await t.call("GET", "/metrics")).text();
  const line = text.split("\n").find((l) => l.startsWith(`vitrin_auth_failures_total{guard="${guard}",reason="${reason}"}`));
  return line ? Number(line.split(" ").at(-1)) : NaN;
}

describe("tokens only in the Authorization header", () => {
  test("an account token in ?access_token= is ignored: 401", async () => {
    t = await startService();
    const a = await t.newAccount();
    expect((await t.call("GET", "/v1/products", { token: a.token })).status).toBe(200);
    const res = await t.json("GET", `/v1/products?access_token=${a.token}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized", code: "unauthorized", message: expect.any(String) });
  });

  test("the admin token in ?access_token= is ignored: 401", async () => {
    t = await startService();
    expect((await t.call("GET", "/v1/admin/accounts", { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await t.call("GET", `/v1/admin/accounts?access_token=${ADMIN_TOKEN}`)).status).toBe(401);
    expect((await t.call("GET", `/v1/admin/jobs?access_token=${ADMIN_TOKEN}`)).status).toBe(401);
  });

  test("the admin token on an account route is a 401 that says it is the admin token, not an unknown one", async () => {
    t = await startService();
    const res = await t.json("GET", "/v1/products", { token: ADMIN_TOKEN });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("This is the operator's VITRIN_ADMIN_TOKEN, which works on /v1/admin only; account routes take an account's API token.");
    expect((await t.json("GET", "/v1/products", { token: "vt_not_a_real_token" })).body.message).toBe("The bearer token is unknown or revoked.");
  });

  test("the scheme is case-insensitive, anything but a Bearer token is a 401", async () => {
    t = await startService();
    const a = await t.newAccount();
    expect((await t.call("GET", "/v1/products", { headers: { authorization: `bearer ${a.token}` } })).status).toBe(200);
    expect((await t.call("GET", "/v1/products", { headers: { authorization: `Basic ${btoa(`x:${a.token}`)}` } })).status).toBe(401);
    expect((await t.call("GET", "/v1/products", { headers: { authorization: `Bearer ${a.token} extra` } })).status).toBe(401);
  });
});

describe("failed-authentication throttle", () => {
  test("the 21st failure from one address is a 429 with Retry-After, while a valid token from another still gets 200", async () => {
    t = await startService();
    const a = await t.newAccount();
    const port = serve(t);
    // Requests with no token at all guess nothing: they are 401s that do not count toward the throttle.
    for (let i = 0; i < 30; i++) expect((await getFrom("127.0.0.1", port, "/v1/products")).status).toBe(401);
    for (let i = 0; i < 20; i++) expect((await getFrom("127.0.0.1", port, "/v1/products", `wrong-${i}`)).status).toBe(401);

    const blocked = await getFrom("127.0.0.1", port, "/v1/products", "wrong-21");
    expect(blocked.status).toBe(429);
    expect(blocked.headers["retry-after"]).toBe("60");
    expect(blocked.body).toEqual({ error: "Too many requests", code: "rate_limited", message: expect.any(String), retry_after: 60 });
    // Decided before the token is looked at: a valid token from the throttled address learns nothing either.
    expect((await getFrom("127.0.0.1", port, "/v1/products", a.token)).status).toBe(429);
    expect((await getFrom("127.0.0.1", port, "/v1/admin/accounts", ADMIN_TOKEN)).status).toBe(429);

    const other = await getFrom("127.0.0.2", port, "/v1/products", a.token);
    expect(other.status).toBe(200);
    expect((await getFrom("127.0.0.2", port, "/v1/admin/accounts", ADMIN_TOKEN)).status).toBe(200);
  });

  test("admin failures count the same way", async () => {
    t = await startService();
    const port = serve(t);
    for (let i = 0; i < 20; i++) expect((await getFrom("127.0.0.1", port, "/v1/admin/accounts", `guess-${i}-0123456789`)).status).toBe(401);
    expect((await getFrom("127.0.0.1", port, "/v1/admin/accounts", ADMIN_TOKEN)).status).toBe(429);
    expect((await getFrom("127.0.0.2", port, "/v1/admin/accounts", ADMIN_TOKEN)).status).toBe(200);
  });

  test("the throttle forgets an address once its minute is over", async () => {
    t = await startService();
    const a = await t.newAccount();
    const port = serve(t);
    for (let i = 0; i < 20; i++) await getFrom("127.0.0.1", port, "/v1/products", `wrong-${i}`);
    t.clock.advance(45_000);
    const still = await getFrom("127.0.0.1", port, "/v1/products", a.token);
    expect([still.status, still.headers["retry-after"]]).toEqual([429, "15"]);
    t.clock.advance(15_000);
    expect((await getFrom("127.0.0.1", port, "/v1/products", a.token)).status).toBe(200);
    expect((await getFrom("127.0.0.1", port, "/v1/products", "wrong-again")).status).toBe(401);
  });

  test("VITRIN_AUTH_FAILURES_PER_MINUTE sets the limit, 0 turns the throttle off", async () => {
    t = await startService({ VITRIN_AUTH_FAILURES_PER_MINUTE: "3" });
    let port = serve(t);
    for (let i = 0; i < 3; i++) expect((await getFrom("127.0.0.1", port, "/v1/products", "wrong")).status).toBe(401);
    expect((await getFrom("127.0.0.1", port, "/v1/products", "wrong")).status).toBe(429);
    await t.close();

    t = await startService({ VITRIN_AUTH_FAILURES_PER_MINUTE: "0" });
    port = serve(t);
    for (let i = 0; i < 30; i++) expect((await getFrom("127.0.0.1", port, "/v1/products", "wrong")).status).toBe(401);
  });
});

describe("client address", () => {
  test("X-Forwarded-For is ignored unless the peer is a trusted proxy", async () => {
    t = await startService({ VITRIN_AUTH_FAILURES_PER_MINUTE: "3" });
    const a = await t.newAccount();
    const port = serve(t);
    // A client inventing a new forwarded address per try still counts as itself.
    for (let i = 0; i < 3; i++) await getFrom("127.0.0.1", port, "/v1/products", "wrong", { "x-forwarded-for": `203.0.113.${i}` });
    expect((await getFrom("127.0.0.1", port, "/v1/products", a.token, { "x-forwarded-for": "198.51.100.9" })).status).toBe(429);
  });

  test("behind a trusted proxy, the forwarded client is throttled and its neighbours are not", async () => {
    t = await startService({ VITRIN_AUTH_FAILURES_PER_MINUTE: "3", VITRIN_TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8" });
    const a = await t.newAccount();
    const port = serve(t);
    // The client's own left-most claim is not believed: the right-most untrusted hop is the client.
    for (let i = 0; i < 3; i++) {
      await getFrom("127.0.0.1", port, "/v1/products", "wrong", { "x-forwarded-for": `192.0.2.${i}, 203.0.113.7, 10.1.2.3` });
    }
    expect((await getFrom("127.0.0.1", port, "/v1/products", a.token, { "x-forwarded-for": "203.0.113.7" })).status).toBe(429);
    expect((await getFrom("127.0.0.1", port, "/v1/products", a.token, { "x-forwarded-for": "203.0.113.8" })).status).toBe(200);
    // 127.0.0.2 is no proxy: its header is ignored and it is judged as itself.
    expect((await getFrom("127.0.0.2", port, "/v1/products", a.token, { "x-forwarded-for": "203.0.113.7" })).status).toBe(200);
  });

  test("VITRIN_TRUSTED_PROXIES takes addresses and CIDR blocks; anything else is refused with the variable named", () => {
    expect(loadConfig({ VITRIN_TRUSTED_PROXIES: " 127.0.0.1, 10.0.0.0/8,fd00::/8 " }).trustedProxies).toEqual(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(() => loadConfig({ VITRIN_TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow("VITRIN_TRUSTED_PROXIES");
    expect(() => loadConfig({ VITRIN_TRUSTED_PROXIES: "proxy.local" })).toThrow("not an IP address");
  });

  test("the forwarded chain is walked from the right, stopping at the first untrusted hop", () => {
    const trusted = trustedProxyList(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
    const from = (peer: string, xff?: string) =>
      clientAddress(
        new Request("http://x/", { headers: xff ? { "x-forwarded-for": xff } : {} }),
        { requestIP: () => ({ address: peer }) },
        trusted,
      );
    expect(from("127.0.0.1", "1.1.1.1, 2.2.2.2, 10.0.0.5")).toBe("2.2.2.2");
    expect(from("::ffff:127.0.0.1", "2.2.2.2")).toBe("2.2.2.2");
    expect(from("fd00::1", "10.9.9.9, 2001:db8::1")).toBe("2001:db8::1");
    expect(from("127.0.0.1", "10.0.0.1, 10.0.0.2")).toBe("10.0.0.1");
    expect(from("127.0.0.1", "2.2.2.2, not-an-ip, 10.0.0.2")).toBe("10.0.0.2");
    expect(from("127.0.0.1")).toBe("127.0.0.1");
    expect(from("8.8.8.8", "2.2.2.2")).toBe("8.8.8.8");
    expect(clientAddress(new Request("http://x/"), null, trusted)).toBeNull();
  });

  test("IPv6 clients count by their /64, IPv4-mapped ones as IPv4", () => {
    expect(throttleKey("2001:db8:1:2:aaaa::1")).toBe(throttleKey("2001:db8:1:2:bbbb:cccc:dddd:eeee"));
    expect(throttleKey("2001:db8:1:2::1")).not.toBe(throttleKey("2001:db8:1:3::1"));
    expect(throttleKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(throttleKey("192.0.2.1")).toBe("192.0.2.1");
  });
});

describe("bounded memory", () => {
  test("the throttle remembers at most maxAddresses, dropping the least recently failed", () => {
    const clock = new ManualClock();
    const throttle = new AuthThrottle({ limit: 2, maxAddresses: 100, clock });
    throttle.fail("keep");
    throttle.fail("keep");
    for (let i = 0; i < 1000; i++) {
      throttle.fail(`10.0.${i >> 8}.${i & 255}`);
      if (i % 50 === 0) throttle.fail("keep");
    }
    expect(throttle.size).toBe(100);
    // Failing again recently kept this one while a thousand others came and went.
    expect(throttle.retryAfter("keep")).toBe(60);
    expect(throttle.retryAfter("10.0.0.0")).toBe(0);
  });

  test("ended windows are swept out", () => {
    const clock = new ManualClock();
    const throttle = new AuthThrottle({ limit: 5, clock });
    for (let i = 0; i < 500; i++) throttle.fail(`10.1.${i >> 8}.${i & 255}`);
    clock.advance(60_000);
    throttle.fail("10.2.0.1");
    expect(throttle.size).toBe(1);
  });
});

test("failed authentications are counted in /metrics by guard and reason", async () => {
  t = await startService();
  expect(await metricValue(t, "account", "invalid")).toBe(0);
  await t.call("GET", "/v1/products", { token: "wrong" });
  await t.call("GET", "/v1/products", { token: "wrong" });
  await t.call("GET", "/v1/products");
  await t.call("GET", "/v1/admin/accounts", { token: "wrong-admin-token-000000" });
  expect(await metricValue(t, "account", "invalid")).toBe(2);
  expect(await metricValue(t, "account", "missing")).toBe(1);
  expect(await metricValue(t, "admin", "invalid")).toBe(1);
  expect(await metricValue(t, "admin", "missing")).toBe(0);
});
