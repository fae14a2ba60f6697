// What docs/api.md says of string lengths and lone surrogates: lengths count UTF-16 code units (an emoji outside the
// Basic Multilingual Plane counts two), and a lone surrogate in a JSON string is stored and answered as U+FFFD.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { productPhoto, startImageHost, startService, type ImageHost, type TestService } from "./helpers";

let t: TestService;
let token: string;
let host: ImageHost;
beforeAll(async () => {
  t = await startService();
  token = (await t.newAccount()).token;
  const photo = await productPhoto();
  host = startImageHost({ "/p.jpg": { body: photo, type: "image/jpeg" } });
});
afterAll(async () => {
  host.close();
  await t.close();
});

const product = (name: string) => t.json("POST", "/v1/products", { token, body: { name, image_url: host.url("/p.jpg"), dekupe: false } });

test("a product name of 100 emoji (200 code units) is taken; 101 emoji is a 422 naming name", async () => {
  const ok = await product("🛍".repeat(100));
  expect(ok.status).toBe(201);
  expect(ok.body.name).toBe("🛍".repeat(100));
  const long = await product("🛍".repeat(101));
  expect(long.status).toBe(422);
  expect(JSON.stringify(long.body)).toContain("name");
});

test("a lone surrogate in a JSON string is stored and answered as U+FFFD", async () => {
  const res = await t.call("POST", "/v1/products", {
    token,
    headers: { "content-type": "application/json" },
    raw: `{"name":"Mug \\ud800 blue","image_url":"${host.url("/p.jpg")}","dekupe":false}`,
  });
  expect(res.status).toBe(201);
  const created = (await res.json()) as { id: string; name: string };
  expect(created.name).toBe("Mug \ufffd blue");
  const read = await t.json("GET", `/v1/products/${created.id}`, { token });
  expect(read.body.name).toBe("Mug \ufffd blue");
});
