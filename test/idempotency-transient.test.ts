// An Idempotency-Key is not bound to an answer whose cause may pass: when the image host of a product's image_url
// timed out, could not be reached or answered 5xx, the 422 goes out but the key is freed, so the client's retry with
// the same key creates the product once the host is back. An answer about the request itself (a 404 image) is kept.
import { afterEach, expect, test } from "bun:test";
import { productPhoto, startService, type TestService } from "./helpers";

let t: TestService | undefined;
let host: ReturnType<typeof Bun.serve> | undefined;
afterEach(async () => {
  await t?.close();
  host?.stop(true);
  t = undefined;
  host = undefined;
});

/** An image host that answers `status` until `heal()`, then the photo. */
async function flakyHost(status: number) {
  const photo = await productPhoto("jpeg");
  let healed = false;
  host = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => (healed ? new Response(photo, { headers: { "content-type": "image/jpeg" } }) : new Response("busy", { status })),
  });
  return { url: `http://127.0.0.1:${host.port}/mug.jpg`, heal: () => (healed = true) };
}

test("an image host answering 503: the 422 is not replayed, the retry with the same key creates the product once", async () => {
  const flaky = await flakyHost(503);
  t = await startService();
  const a = await t.newAccount();
  const headers = { "idempotency-key": "mug-after-outage" };
  const body = { name: "Mug", image_url: flaky.url, dekupe: false };
  const first = await t.json("POST", "/v1/products", { token: a.token, headers, body });
  expect(first.status).toBe(422);
  expect(first.body.message).toContain("HTTP 503");
  flaky.heal();
  const retry = await t.json("POST", "/v1/products", { token: a.token, headers, body });
  expect(retry.status).toBe(201);
  expect(retry.headers.get("idempotent-replayed")).toBeNull();
  const again = await t.json("POST", "/v1/products", { token: a.token, headers, body });
  expect([again.status, again.headers.get("idempotent-replayed"), again.body.id]).toEqual([201, "true", retry.body.id]);
  expect((await t.json("GET", "/v1/products", { token: a.token })).body.data).toHaveLength(1);
});

test("an image host that refuses connections: the retry with the same key is carried out afresh", async () => {
  // A port nothing listens on: bound, then closed.
  const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const url = `http://127.0.0.1:${closed.port}/mug.jpg`;
  closed.stop(true);
  t = await startService();
  const a = await t.newAccount();
  const headers = { "idempotency-key": "mug-no-host" };
  const body = { name: "Mug", image_url: url, dekupe: false };
  const first = await t.json("POST", "/v1/products", { token: a.token, headers, body });
  expect(first.status).toBe(422);
  const second = await t.json("POST", "/v1/products", { token: a.token, headers, body });
  expect(second.status).toBe(422);
  expect(second.headers.get("idempotent-replayed")).toBeNull();
});

test("an image host answering 404 is the URL's fault: the 422 is kept under the key and replayed", async () => {
  const flaky = await flakyHost(404);
  t = await startService();
  const a = await t.newAccount();
  const headers = { "idempotency-key": "mug-wrong-url" };
  const body = { name: "Mug", image_url: flaky.url, dekupe: false };
  expect((await t.json("POST", "/v1/products", { token: a.token, headers, body })).status).toBe(422);
  flaky.heal();
  const again = await t.json("POST", "/v1/products", { token: a.token, headers, body });
  expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([422, "true"]);
});
