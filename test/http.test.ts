// Cross-cutting HTTP behaviour: request ids, error shapes, auth, rate limits, idempotency and operational routes.
import { afterEach, beforeAll, afterAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, eventually, productPhoto, startImageHost, startService, type ImageHost, type TestService } from "./helpers";

let t: TestService;
let host: ImageHost;

beforeAll(async () => {
  host = startImageHost({ "/mug.jpg": { body: await productPhoto("jpeg"), type: "image/jpeg" } });
});
afterAll(() => host.close());
afterEach(async () => {
  await t?.close();
});

describe("request ids", () => {
  test("every response carries X-Request-Id, also errors and unknown routes", async () => {
    t = await startService();
    for (const path of ["/healthz", "/v1/products", "/nope"]) {
      const res = await t.call("GET", path);
      expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    }
  });

  test("a sane incoming X-Request-Id is kept and appears in the log line", async () => {
    t = await startService();
    const res = await t.call("GET", "/healthz", { headers: { "x-request-id": "abc-123" } });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
    expect(await eventually(() => t.logs.some((r) => r.msg === "request" && r.request_id === "abc-123"))).toBe(true);
  });
});

describe("errors", () => {
  test("an unknown route is a 404 in the contract's shape", async () => {
    t = await startService();
    const res = await t.json("GET", "/v1/unknown");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Not found", code: "not_found", message: expect.any(String) });
  });

  test("a bug is a 500 with the request id and no stack trace", async () => {
    t = await startService();
    t.service.app.get("/v1/boom", () => {
      throw new Error("secret internals at /srv/x.ts:12");
    });
    const res = await t.json("GET", "/v1/boom");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal error", code: "internal_error", message: expect.any(String), request_id: res.headers.get("x-request-id") });
    expect(JSON.stringify(res.body)).not.toContain("secret");
  });

  test("a body over the cap is a 413 before it is parsed", async () => {
    t = await startService({ VITRIN_MAX_BODY_BYTES: "2048" });
    const a = await t.newAccount();
    const res = await t.json("POST", "/v1/products", { token: a.token, body: { name: "x".repeat(5000), image_url: "x" } });
    expect(res.status).toBe(413);
    expect(res.body.max_size).toBe(2048);
  });
});

describe("authentication", () => {
  test("no token is a 401 with WWW-Authenticate", async () => {
    t = await startService();
    const res = await t.json("GET", "/v1/products");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Unauthorized", code: "unauthorized", message: expect.any(String) });
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
  });

  test("an unknown token is a 401", async () => {
    t = await startService();
    const res = await t.json("GET", "/v1/products", { token: "vt_not_a_real_token" });
    expect(res.status).toBe(401);
  });

  test("an unauthenticated request with a bad body is a 401, not a 422", async () => {
    t = await startService();
    const res = await t.json("POST", "/v1/products", { body: { nope: 1 } });
    expect(res.status).toBe(401);
  });
});

describe("rate limiting", () => {
  test("past the burst a token gets 429 with Retry-After, and is let in again once time passes", async () => {
    t = await startService({ VITRIN_RATE_LIMIT: "60", VITRIN_RATE_LIMIT_BURST: "3" });
    const a = await t.newAccount();
    const codes: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 4; i++) {
      last = await t.call("GET", "/v1/products", { token: a.token });
      codes.push(last.status);
    }
    expect(codes).toEqual([200, 200, 200, 429]);
    expect(last!.headers.get("retry-after")).toBe("1");
    expect(last!.headers.get("ratelimit-remaining")).toBe("0");
    const body = await last!.json();
    expect(body).toEqual({ error: "Too many requests", code: "rate_limited", message: expect.any(String), retry_after: 1 });
    t.clock.advance(1000);
    expect((await t.call("GET", "/v1/products", { token: a.token })).status).toBe(200);
  });

  test("successful responses carry RateLimit headers", async () => {
    t = await startService({ VITRIN_RATE_LIMIT: "600", VITRIN_RATE_LIMIT_BURST: "10" });
    const a = await t.newAccount();
    const res = await t.call("GET", "/v1/products", { token: a.token });
    expect(res.headers.get("ratelimit-limit")).toBe("10");
    expect(res.headers.get("ratelimit-remaining")).toBe("9");
  });

  test("limits are per token", async () => {
    t = await startService({ VITRIN_RATE_LIMIT: "60", VITRIN_RATE_LIMIT_BURST: "1" });
    const a = await t.newAccount();
    const b = await t.newAccount();
    expect((await t.call("GET", "/v1/products", { token: a.token })).status).toBe(200);
    expect((await t.call("GET", "/v1/products", { token: a.token })).status).toBe(429);
    expect((await t.call("GET", "/v1/products", { token: b.token })).status).toBe(200);
  });
});

describe("idempotency", () => {
  test("the same key and body replays the first response without creating twice", async () => {
    t = await startService();
    const a = await t.newAccount();
    const body = { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false };
    const headers = { "idempotency-key": "create-mug-1" };
    const first = await t.json("POST", "/v1/products", { token: a.token, body, headers });
    const second = await t.json("POST", "/v1/products", { token: a.token, body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect((await t.json("GET", "/v1/products", { token: a.token })).body.data).toHaveLength(1);
  });

  test("the same key with another body is a 409", async () => {
    t = await startService();
    const a = await t.newAccount();
    const headers = { "idempotency-key": "k1" };
    await t.json("POST", "/v1/products", { token: a.token, headers, body: { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false } });
    const res = await t.json("POST", "/v1/products", { token: a.token, headers, body: { name: "Cup", image_url: host.url("/mug.jpg"), dekupe: false } });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("Conflict");
  });

  test("the same fields in another order are the same request: replayed, not a 409", async () => {
    t = await startService();
    const a = await t.newAccount();
    const headers = { "idempotency-key": "reordered" };
    const first = await t.json("POST", "/v1/products", { token: a.token, headers, body: { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false, metadata: { a: "1", b: "2" } } });
    const again = await t.json("POST", "/v1/products", { token: a.token, headers, body: { metadata: { b: "2", a: "1" }, dekupe: false, image_url: host.url("/mug.jpg"), name: "Mug" } });
    expect([first.status, again.status, again.headers.get("idempotent-replayed")]).toEqual([201, 201, "true"]);
    expect(again.body.id).toBe(first.body.id);
  });

  test("an error answer is replayed too", async () => {
    t = await startService();
    const a = await t.newAccount();
    const headers = { "idempotency-key": "missing-image" };
    const body = { name: "Mug", image_url: host.url("/missing.jpg") };
    const first = await t.json("POST", "/v1/products", { token: a.token, headers, body });
    const second = await t.json("POST", "/v1/products", { token: a.token, headers, body });
    expect(first.status).toBe(422);
    expect(second.status).toBe(422);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
  });

  test("keys are scoped to the account", async () => {
    t = await startService();
    const a = await t.newAccount();
    const b = await t.newAccount();
    const headers = { "idempotency-key": "shared" };
    const body = { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false };
    const ra = await t.json("POST", "/v1/products", { token: a.token, headers, body });
    const rb = await t.json("POST", "/v1/products", { token: b.token, headers, body });
    expect(rb.status).toBe(201);
    expect(rb.body.id).not.toBe(ra.body.id);
  });

  test("after 24 hours a key may be used again", async () => {
    t = await startService();
    const a = await t.newAccount();
    const headers = { "idempotency-key": "daily" };
    const body = { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false };
    const first = await t.json("POST", "/v1/products", { token: a.token, headers, body });
    t.clock.advance(24 * 3600 * 1000 + 1);
    const second = await t.json("POST", "/v1/products", { token: a.token, headers, body });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
  });
});

describe("operations", () => {
  test("/healthz and /readyz answer 200 when the database and storage are fine", async () => {
    t = await startService();
    expect((await t.json("GET", "/healthz")).body).toEqual({ status: "ok" });
    const ready = await t.json("GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database.ok).toBe(true);
    expect(ready.body.checks[`storage-${t.service.config.storage}`].ok).toBe(true);
  });

  test("/metrics exposes request counts by route and status in Prometheus text", async () => {
    t = await startService();
    await t.call("GET", "/v1/products");
    // Elysia records a finished response after it is sent.
    let text = "";
    let type: string | null = null;
    await eventually(async () => {
      const res = await t.call("GET", "/metrics");
      type = res.headers.get("content-type");
      text = await res.text();
      return text.includes('route="/v1/products",status="401"');
    });
    expect(type!).toContain("text/plain");
    expect(text).toContain('vitrin_http_requests_total{method="GET",route="/v1/products",status="401"} 1');
    expect(text).toContain("vitrin_http_request_duration_seconds_bucket");
  });

  test("/openapi.json documents the product routes and /docs works offline", async () => {
    t = await startService();
    const spec = await t.json("GET", "/openapi.json");
    expect(spec.status).toBe(200);
    expect(Object.keys(spec.body.paths)).toContain("/v1/products");
    const docs = await (await t.call("GET", "/docs")).text();
    expect(docs).toContain("/docs/assets/swagger-ui-bundle.js");
    expect(docs).not.toMatch(/https?:\/\/(unpkg|cdn)/);
    const asset = await t.call("GET", "/docs/assets/swagger-ui-bundle.js");
    expect(asset.status).toBe(200);
    expect((await asset.text()).length).toBeGreaterThan(100_000);
  });

  test("the admin API is off (404) without VITRIN_ADMIN_TOKEN", async () => {
    t = await startService({ VITRIN_ADMIN_TOKEN: "" });
    const res = await t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, body: {} });
    expect(res.status).toBe(404);
  });
});

describe("job metrics", () => {
  test("/metrics reports job queue depth by kind and status", async () => {
    t = await startService();
    const a = await t.newAccount();
    await t.json("POST", "/v1/products", { token: a.token, body: { name: "Mug", image_url: host.url("/mug.jpg") } });
    const text = await (await t.call("GET", "/metrics")).text();
    expect(text).toContain('vitrin_jobs{kind="dekupe",status="queued"} 1');
    expect(text).toContain('vitrin_jobs_oldest_waiting_seconds{kind="dekupe"}');
  });
});
