// The request path stays lean (issue 19 point 8): a guarded route prepares only the context fields its hooks name,
// the failed-authentication throttle says when nobody can be turned away (so callers' addresses need not be worked
// out), JSON answers written once still follow every write, and the request metrics read as prom-client's did.
import { afterEach, expect, test } from "bun:test";
import { AuthThrottle } from "../src/http/auth-throttle";
import { ManualClock } from "../src/kernel";
import { eventually, freePort, productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

test("a guarded route parses no cookies, and a guarded read copies no request headers", async () => {
  t = await startService();
  for (const [method, path] of [["GET", "/v1/products"], ["GET", "/v1/products/:id"], ["POST", "/v1/admin/accounts"]]) {
    const route = t.service.app.routes.find((r) => r.method === method && r.path === path);
    expect(route).toBeDefined();
    const handler = String(route!.compile());
    // A hook that takes the whole context makes Elysia prepare all of it for every route in the app.
    expect(handler).not.toContain("parseCookie");
    // Reads stay lean. A POST that honours Idempotency-Key declares that header's schema (so /openapi.json shows it),
    // and Elysia copies the headers to check it: a microsecond beside the write the POST makes.
    if (method === "GET") expect(handler).not.toContain("c.headers=");
  }
});

test("no request hook is awaited: what Bun calls for a route is a plain function until the route's own handler", async () => {
  t = await startService();
  // The adapter's own builder of what Bun.serve's routes call (Elysia builds each on a route's first request).
  const { createBunRouteHandler } = await import("elysia/adapter/bun/compose");
  const route = t.service.app.routes.find((r) => r.method === "GET" && r.path === "/v1/products");
  expect(route).toBeDefined();
  // What Bun calls first: the request scopes' wrapper (src/http/request-scope.ts), plain, handing a GET straight on.
  const outer = String(createBunRouteHandler(t.service.app, route!));
  expect(outer).not.toContain("await");
  expect(outer).not.toMatch(/async function/);
  // Then the route's own function, built here without the wrapper to read it.
  const extender = (t.service.app as unknown as { extender: { higherOrderFunctions: unknown[] } }).extender;
  const wrappers = extender.higherOrderFunctions;
  let map: string;
  try {
    extender.higherOrderFunctions = [];
    map = String(createBunRouteHandler(t.service.app, route!));
  } finally {
    extender.higherOrderFunctions = wrappers;
  }
  // Every onRequest hook runs on every request of every route: an async one (or one Elysia takes for async) would
  // cost each request a turn of the microtask queue, and make the whole function async.
  expect(map).toContain("onRequest[0](c)");
  expect(map).not.toContain("await");
  expect(map).not.toMatch(/async function/);
});

test("the throttle is blocking only while some address has spent its failures, until that window ends", () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  const throttle = new AuthThrottle({ limit: 3, clock });
  expect(throttle.blocking).toBe(false);
  throttle.fail("192.0.2.1");
  throttle.fail("192.0.2.1");
  throttle.fail("192.0.2.2");
  expect(throttle.blocking).toBe(false);
  clock.advance(20_000);
  throttle.fail("192.0.2.1");
  expect(throttle.blocking).toBe(true);
  expect(throttle.retryAfter("192.0.2.1")).toBe(40);
  // The window opened at the address's first failure, so it ends 60 s after that, not after the last one.
  clock.advance(39_999);
  expect(throttle.blocking).toBe(true);
  clock.advance(1);
  expect(throttle.blocking).toBe(false);
  expect(throttle.retryAfter("192.0.2.1")).toBe(0);
  expect(new AuthThrottle({ limit: 0, clock }).blocking).toBe(false);
});

test("a list answered from the read cache is the same text each time and changes with the next write", async () => {
  t = await startService();
  const { token } = await t.newAccount();
  const image_url = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 64, 64)).toString("base64")}`;
  const created = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url, dekupe: false } });
  expect(created.status).toBe(201);
  const first = await t.call("GET", "/v1/products", { token });
  const second = await t.call("GET", "/v1/products", { token });
  expect(first.headers.get("content-type")).toBe("application/json;charset=utf-8");
  const text = await first.text();
  expect(await second.text()).toBe(text);
  expect(JSON.parse(text).data.map((p: { name: string }) => p.name)).toEqual(["Mug"]);
  const renamed = await t.json("PATCH", `/v1/products/${created.body.id}`, { token, body: { name: "Cup" } });
  expect(renamed.status).toBe(200);
  const after = await t.json("GET", "/v1/products", { token });
  expect(after.body.data.map((p: { name: string }) => p.name)).toEqual(["Cup"]);
});

test("request counts and latency buckets read as prom-client writes them", async () => {
  t = await startService();
  for (let i = 0; i < 3; i++) await t.call("GET", "/healthz");
  await t.call("GET", "/v1/products");
  // Requests are counted as they are answered; eventually() only spares the test from knowing when exactly.
  let lines: string[] = [];
  const counted = await eventually(async () => {
    lines = (await (await t.call("GET", "/metrics")).text()).split("\n");
    return lines.some((l) => l.includes('route="/v1/products",status="401"'));
  });
  expect(counted).toBe(true);
  expect(lines).toContain('vitrin_http_requests_total{method="GET",route="/healthz",status="200"} 3');
  expect(lines).toContain('vitrin_http_requests_total{method="GET",route="/v1/products",status="401"} 1');
  expect(lines).toContain("# TYPE vitrin_http_request_duration_seconds histogram");
  const healthz = lines.filter((l) => l.startsWith("vitrin_http_request_duration_seconds") && l.includes('route="/healthz"'));
  // 14 buckets, +Inf, sum and count, in that order; buckets are cumulative and end at the count.
  expect(healthz).toHaveLength(17);
  expect(healthz[0]).toMatch(/^vitrin_http_request_duration_seconds_bucket\{le="0\.0005",method="GET",route="\/healthz"\} \d$/);
  expect(healthz[13]).toBe('vitrin_http_request_duration_seconds_bucket{le="10",method="GET",route="/healthz"} 3');
  expect(healthz[14]).toBe('vitrin_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/healthz"} 3');
  expect(healthz[15]).toMatch(/^vitrin_http_request_duration_seconds_sum\{method="GET",route="\/healthz"\} [\d.e-]+$/);
  expect(healthz[16]).toBe('vitrin_http_request_duration_seconds_count{method="GET",route="/healthz"} 3');
  const counts = healthz.slice(0, 14).map((l) => Number(l.split(" ").pop()));
  expect(counts).toEqual([...counts].sort((a, b) => a - b));
});

test("every request is logged and counted once, with the status it was answered with, whichever hook answered it", async () => {
  t = await startService({ VITRIN_MAX_BODY_BYTES: "4096" });
  const { token } = await t.newAccount();
  const calls: [string, string, string | undefined, number][] = [
    ["ok", "/v1/products", token, 200], // the handler's answer, written by mapResponse
    ["unauthenticated", "/v1/products", undefined, 401], // thrown by the guard, answered by onError
    ["invalid", "/v1/products?limit=0", token, 422], // the query schema's failure
    ["unmatched", "/v1/no-such-thing", token, 404], // no route: answered outside any route's hooks
  ];
  for (const [id, path, bearer, status] of calls) {
    expect((await t.call("GET", path, { token: bearer, headers: { "x-request-id": id } })).status).toBe(status);
  }
  // A body announced over the cap is refused in onRequest, before routing, where Elysia runs no later hook.
  const port = freePort();
  t.service.listen(port, "127.0.0.1");
  const tooLarge = await fetch(`http://127.0.0.1:${port}/v1/products`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-request-id": "too-large" },
    body: new Uint8Array(64 * 1024).fill(0x20),
  });
  expect(tooLarge.status).toBe(413);
  const expected = [...calls.map(([id, , , status]) => [id, status]), ["too-large", 413]];
  const lines = () => t.logs.filter((r) => r.msg === "request" && expected.some(([id]) => id === r.request_id));
  await eventually(() => lines().length >= expected.length);
  expect(lines().map((r) => [r.request_id, r.status])).toEqual(expected);
  expect(lines().find((r) => r.request_id === "unmatched")).toMatchObject({ route: "unmatched", path: "/v1/no-such-thing" });
  const metrics = (await (await t.call("GET", "/metrics")).text()).split("\n");
  for (const status of [200, 401, 422]) {
    expect(metrics).toContain(`vitrin_http_requests_total{method="GET",route="/v1/products",status="${status}"} 1`);
  }
  expect(metrics).toContain('vitrin_http_requests_total{method="GET",route="unmatched",status="404"} 1');
  expect(metrics).toContain('vitrin_http_requests_total{method="POST",route="unmatched",status="413"} 1');
});
