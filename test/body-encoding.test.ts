// A JSON body must be UTF-8: one in Latin-1 or Windows-1252 (an old client's "Café") is a 400 in the catalogue's
// shape and nothing is stored, instead of a product whose accents became U+FFFD; UTF-8, with or without a BOM, is read.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
let token: string;
let image: string;
beforeAll(async () => {
  t = await startService();
  ({ token } = await t.newAccount());
  image = `data:image/png;base64,${Buffer.from(await productPhoto("png", 64, 64)).toString("base64")}`;
});
afterAll(() => t.close());

async function post(bytes: Uint8Array) {
  const res = await t.service.handle(
    new Request("http://vitrin.test/v1/products", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: bytes }),
  );
  return { status: res.status, body: (await res.json()) as any };
}

const body = (name: string) => JSON.stringify({ name, image_url: image, dekupe: false });

test("a Latin-1 body is a 400 saying the body is not UTF-8; no product is made", async () => {
  const res = await post(Buffer.from(body("Café"), "latin1"));
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: "Bad request", code: "bad_request", message: expect.stringContaining("not valid UTF-8") });
  expect((await t.json("GET", "/v1/products", { token })).body.data).toEqual([]);
});

test("UTF-8 keeps its accents, and a leading byte order mark is allowed", async () => {
  const plain = await post(new TextEncoder().encode(body("Café")));
  expect(plain.status).toBe(201);
  expect(plain.body.name).toBe("Café");
  const bom = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body("Crème"), "utf8")]));
  expect(bom.status).toBe(201);
  expect(bom.body.name).toBe("Crème");
});
