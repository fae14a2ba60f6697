// GET /v1/videos/estimate (the estimate is a POST) reaches the route of one video: its 404 says which method the
// estimate takes rather than only "No such video."; an unknown video id keeps the plain 404.
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
