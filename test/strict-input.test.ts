// Strict input: every POST, PATCH and PUT route has a body schema, so a field it does not know is a 422 naming that
// field instead of being ignored; routes that take no body accept none or {}; `expand` is refused, never ignored; the
// body schemas are visible in /openapi.json.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
let token: string;
beforeAll(async () => {
  t = await startService();
  token = (await t.newAccount()).token;
});
afterAll(() => t.close());

/** The payment provider's webhook takes the provider's own signed text, whatever its fields: not ours to judge. */
const RAW_BODY_ROUTES = new Set(["POST /v1/payments/:provider/webhook"]);

/** Every route of the app that takes a body, as "METHOD /path" with Elysia's :params. */
function bodyRoutes(): { method: string; path: string }[] {
  const routes = (t.service.app as unknown as { routes: { method: string; path: string }[] }).routes;
  return routes
    .filter((r) => ["POST", "PATCH", "PUT"].includes(r.method) && r.path.startsWith("/v1/"))
    .filter((r) => !RAW_BODY_ROUTES.has(`${r.method} ${r.path}`));
}

/** A concrete path for a route: params become ids that do not exist (the schema is checked before any lookup). */
const concrete = (path: string) => path.replace(/:(\w+)/g, (_, name) => (name === "provider" ? "manual" : `${name}_missing`));
const tokenFor = (path: string) => (path.startsWith("/v1/admin/") ? ADMIN_TOKEN : token);

describe("unknown body fields", () => {
  test("the app has the routes this walks (a rename would otherwise empty the table)", () => {
    const names = bodyRoutes().map((r) => `${r.method} ${r.path}`);
    expect(names).toContain("POST /v1/products/:id/dekupe/retry");
    expect(names).toContain("POST /v1/admin/jobs/:id/redrive");
    expect(names.length).toBeGreaterThan(15);
  });

  test("every POST, PATCH and PUT answers an unknown field with 422 naming it", async () => {
    const accepted: string[] = [];
    for (const { method, path } of bodyRoutes()) {
      const res = await t.json(method, concrete(path), { token: tokenFor(path), body: { threshold_unknown: 0.3 } });
      const named = res.status === 422 && res.body.code === "validation_failed" && res.body.details.some((d: { field: string }) => d.field === "threshold_unknown");
      if (!named) accepted.push(`${method} ${path} → ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
    }
    expect(accepted).toEqual([]);
  });

  test("the retry of a background removal no longer takes {threshold} silently", async () => {
    const res = await t.json("POST", "/v1/products/prod_x/dekupe/retry", { token, body: { threshold: 0.3 } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: "threshold", message: "is not a known field" }]);
    expect(res.body.message).toContain("threshold");
  });

  test("a missing field is one problem, and a choice among fixed words names them", async () => {
    const missing = await t.json("POST", "/v1/products", { token, body: { description: "no name" } });
    expect(missing.body.details).toEqual([{ field: "name", message: "is required" }]);
    const format = await t.json("POST", "/v1/videos", { token, body: { template_id: "spotlight", product_id: "prod_x", aspect_ratio: "4:3" } });
    expect(format.body.details).toEqual([{ field: "aspect_ratio", message: 'must be one of "9:16", "4:5", "1:1", "16:9"' }]);
  });

  test("routes that take no body accept none, and {}", async () => {
    for (const path of ["/v1/products/prod_x/dekupe/retry", "/v1/products/prod_x/dekupe/revert", "/v1/webhooks/deliveries/msg_x/redeliver"]) {
      expect((await t.json("POST", path, { token })).status).toBe(404);
      expect((await t.json("POST", path, { token, body: {} })).status).toBe(404);
    }
    expect((await t.json("POST", "/v1/webhooks/secret/rotate", { token })).status).toBe(200);
    expect((await t.json("POST", "/v1/admin/jobs/job_x/redrive", { token: ADMIN_TOKEN })).status).toBe(404);
    expect((await t.json("POST", "/v1/admin/top-ups/top_x/complete", { token: ADMIN_TOKEN, body: {} })).status).toBe(404);
  });
});

describe("expand", () => {
  test("expand is a 422 naming it on any route, never ignored", async () => {
    for (const path of ["/v1/products/prod_x?expand=image", "/v1/balance?expand[]=transactions", "/v1/products?expand=x", "/v1/templates?expand%5B0%5D=x"]) {
      const res = await t.json("GET", path, { token });
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toStartWith("expand");
    }
  });
});

describe("unknown query parameters", () => {
  test("the short lists, which come whole, refuse any query parameter with a 422 naming it", async () => {
    const account = await t.newAccount();
    const paths = ["/v1/templates", "/v1/music", "/v1/tokens", "/v1/webhook_endpoints", "/v1/products/prod_missing/dekupe/attempts"];
    for (const path of paths) {
      const res = await t.json("GET", `${path}?limit=5`, { token: account.token });
      expect([path, res.status, res.body.details?.[0]]).toEqual([path, 422, { field: "limit", message: "is not a known query parameter" }]);
    }
    const admin = await t.json("GET", `/v1/admin/accounts/${account.id}/tokens?limit=5`, { token: ADMIN_TOKEN });
    expect([admin.status, admin.body.details?.[0]?.field]).toEqual([422, "limit"]);
    // Without a query they answer as before.
    expect((await t.json("GET", "/v1/templates", { token: account.token })).status).toBe(200);
  });
});

describe("the schemas in /openapi.json", () => {
  test("the routes that take no body, or a JSON one, show their body schema", async () => {
    const spec = (await t.json("GET", "/openapi.json")).body;
    const retry = spec.paths["/v1/products/{id}/dekupe/retry"].post.requestBody;
    expect(retry.content["application/json"].schema).toMatchObject({ type: "object", additionalProperties: false });
    const missing: string[] = [];
    for (const path of ["/v1/balance/top-up", "/v1/videos", "/v1/videos/estimate", "/v1/admin/accounts", "/v1/webhooks/test", "/v1/admin/jobs/{id}/redrive"]) {
      const op = spec.paths[path].post;
      if (!op.requestBody?.content?.["application/json"]?.schema) missing.push(path);
    }
    expect(missing).toEqual([]);
    expect(spec.paths["/v1/balance/top-up"].post.requestBody.content["application/json"].schema.properties).toHaveProperty("amount");
  });
});
