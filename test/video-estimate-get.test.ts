// 404s that point the way: GET /v1/videos/estimate (the estimate is a POST) reaches the route of one video, and its
// 404 says which method the estimate takes rather than only "No such video."; an unknown template_id names itself and
// where the ids are listed; an unknown video id keeps the plain 404.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startService, type TestService } from "./helpers";

let t: TestService;
let token: string;
beforeAll(async () => {
  t = await startService();
  ({ token } = await t.newAccount());
});
afterAll(() => t.close());

test("GET /v1/videos/estimate is a 404 pointing at POST /v1/videos/estimate", async () => {
  const res = await t.json("GET", "/v1/videos/estimate", { token });
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ error: "Not found", code: "not_found", message: expect.stringContaining("POST /v1/videos/estimate") });
});

test("an unknown video id is the plain 404", async () => {
  const res = await t.json("GET", "/v1/videos/vid_doesnotexist", { token });
  expect(res.status).toBe(404);
  expect(res.body.message).toBe("No such video.");
});

test("an unknown template_id is a 404 naming it and the list of templates", async () => {
  for (const path of ["/v1/videos/estimate", "/v1/videos"]) {
    const res = await t.json("POST", path, { token, body: { template_id: "flash-sales", product_id: "prod_any" } });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('No such template. template_id "flash-sales" is none of the ids GET /v1/templates lists.');
  }
});
