// 404s that point the way: GET /v1/videos/estimate (the estimate is a POST) reaches the route of one video, and its
// 404 says which method the estimate takes rather than only "No such video."; an unknown template_id names itself and
// where the ids are listed; an unknown video id keeps the plain 404.
import { expect, test } from "bun:test";
import { sharedService } from "./helpers";

const shared = sharedService();

test("GET /v1/videos/estimate is a 404 pointing at POST /v1/videos/estimate", async () => {
  const res = await shared.t.json("GET", "/v1/videos/estimate", { token: shared.token });
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ error: "Not found", code: "not_found", message: expect.stringContaining("POST /v1/videos/estimate") });
});

test("an unknown video id is the plain 404", async () => {
  const res = await shared.t.json("GET", "/v1/videos/vid_doesnotexist", { token: shared.token });
  expect(res.status).toBe(404);
  expect(res.body.message).toBe("No such video.");
});

test("an unknown template_id is a 404 naming it and the list of templates", async () => {
  for (const path of ["/v1/videos/estimate", "/v1/videos"]) {
    const res = await shared.t.json("POST", path, { token: shared.token, body: { template_id: "flash-sales", product_id: "prod_any" } });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('No such template. template_id "flash-sales" is none of the ids GET /v1/templates lists.');
  }
});
