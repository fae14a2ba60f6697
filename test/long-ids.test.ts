// An id in a path longer than any vitrin issues names nothing: the route answers its own 404 for the resource, as for
// any unknown id, on both databases, never a 422 about the id's length or a 5xx.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
let token: string;
beforeAll(async () => {
  t = await startService();
  token = (await t.newAccount()).token;
});
afterAll(() => t.close());

const long = `prod_${"x".repeat(600)}`;

test.each([
  ["GET /v1/products/:id", "GET", "/v1/products/ID", "product"],
  ["DELETE /v1/products/:id", "DELETE", "/v1/products/ID", "product"],
  ["GET /v1/products/:id/dekupe", "GET", "/v1/products/ID/dekupe", "product"],
  ["GET /v1/videos/:id", "GET", "/v1/videos/ID", "video"],
  ["GET /v1/balance/top-ups/:id", "GET", "/v1/balance/top-ups/ID", "top-up"],
  ["GET /v1/admin/accounts/:id", "GET", "/v1/admin/accounts/ID", "account"],
] as const)("%s with a 605-character id is a 404 naming the resource", async (_label, method, path, kind) => {
  const admin = path.startsWith("/v1/admin/");
  const res = await t.json(method, path.replace("ID", long), { token: admin ? ADMIN_TOKEN : token });
  expect(res.status).toBe(404);
  expect(res.body.code).toBe("not_found");
  expect(res.body.message.toLowerCase()).toContain(kind);
});
