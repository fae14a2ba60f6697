// metadata on products and videos, Stripe's way: set on create, merged on PATCH ("" or null removes a key, null removes
// all), Stripe's limits each a 422 naming metadata.<key>, and the object returned in lists, reads and webhooks.
import { afterEach, describe, expect, test } from "bun:test";
import { productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

async function setup() {
  t = await startService();
  const acct = await t.newAccount({ credits: 50 });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 320, 240)).toString("base64")}`;
  return { token: acct.token, image };
}

describe("product metadata", () => {
  test("is stored on create and returned by create, GET and the list", async () => {
    const { token, image } = await setup();
    const created = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false, metadata: { sku: "MUG-1", shelf: "b2" } } });
    expect(created.status).toBe(201);
    expect(created.body.metadata).toEqual({ sku: "MUG-1", shelf: "b2" });
    expect((await t.json("GET", `/v1/products/${created.body.id}`, { token })).body.metadata).toEqual({ sku: "MUG-1", shelf: "b2" });
    expect((await t.json("GET", "/v1/products", { token })).body.data[0].metadata).toEqual({ sku: "MUG-1", shelf: "b2" });
  });

  test("a product made without metadata has an empty object", async () => {
    const { token, image } = await setup();
    const created = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false } });
    expect(created.body.metadata).toEqual({});
  });

  test("PATCH merges keys: new ones added, changed ones replaced, \"\" and null remove, others kept", async () => {
    const { token, image } = await setup();
    const { body } = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false, metadata: { a: "1", b: "2", c: "3", d: "4" } } });
    const patched = await t.json("PATCH", `/v1/products/${body.id}`, { token, body: { metadata: { b: "two", c: "", d: null, e: "5" } } });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata).toEqual({ a: "1", b: "two", e: "5" });
    expect(patched.body.name).toBe("Mug");
  });

  test("PATCH with metadata null removes every key; {} changes nothing", async () => {
    const { token, image } = await setup();
    const { body } = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false, metadata: { a: "1" } } });
    expect((await t.json("PATCH", `/v1/products/${body.id}`, { token, body: { metadata: {} } })).body.metadata).toEqual({ a: "1" });
    expect((await t.json("PATCH", `/v1/products/${body.id}`, { token, body: { metadata: null } })).body.metadata).toEqual({});
  });

  test("Stripe's limits: a key over 40 characters, a value over 500, a value that is not a string, each names metadata.<key>", async () => {
    const { token, image } = await setup();
    const long = "k".repeat(41);
    const cases: [Record<string, unknown>, string][] = [
      [{ [long]: "x" }, `metadata.${long}`],
      [{ note: "v".repeat(501) }, "metadata.note"],
      [{ count: 3 }, "metadata.count"],
      [{ "a[b]": "x" }, "metadata.a[b]"],
    ];
    for (const [metadata, field] of cases) {
      const res = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false, metadata } });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
    }
    // At the limits exactly, all is well.
    const ok = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false, metadata: { ["k".repeat(40)]: "v".repeat(500) } } });
    expect(ok.status).toBe(201);
  });

  test("at most 50 keys, counted after the merge: the 51st key is named and nothing changes", async () => {
    const { token, image } = await setup();
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v"]));
    const { body, status } = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false, metadata: fifty } });
    expect(status).toBe(201);
    const over = await t.json("PATCH", `/v1/products/${body.id}`, { token, body: { metadata: { extra: "x" } } });
    expect(over.status).toBe(422);
    expect(over.body.details[0].field).toBe("metadata.extra");
    // Replacing one key while adding another stays at 50.
    const swap = await t.json("PATCH", `/v1/products/${body.id}`, { token, body: { metadata: { k0: null, extra: "x" } } });
    expect(swap.status).toBe(200);
    expect(Object.keys(swap.body.metadata).length).toBe(50);
  });

  test("metadata that is not an object is a 422 naming metadata", async () => {
    const { token, image } = await setup();
    const res = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false, metadata: "sku" } });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe("metadata");
  });

  test("a list for metadata is a 422 saying an object of keys is expected", async () => {
    const { token, image } = await setup();
    const res = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false, metadata: [] } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([
      { field: "metadata", message: 'must be an object of keys and string values ("" or null removes a key), or null to remove every key' },
    ]);
  });

  test("keys named __proto__ and constructor are kept as ordinary keys, on create and on PATCH", async () => {
    const { token, image } = await setup();
    const raw = JSON.stringify({ name: "Mug", image_url: image, dekupe: false }).replace(/}$/, ',"metadata":{"__proto__":"p1","constructor":"c1"}}');
    const created = await t.json("POST", "/v1/products", { token, raw, headers: { "content-type": "application/json" } });
    expect(created.status).toBe(201);
    expect(Object.entries(created.body.metadata)).toEqual([["__proto__", "p1"], ["constructor", "c1"]]);
    const id = created.body.id as string;
    const patched = await t.json("PATCH", `/v1/products/${id}`, { token, raw: '{"metadata":{"__proto__":"p2","x":"1"}}', headers: { "content-type": "application/json" } });
    expect(patched.status).toBe(200);
    expect(Object.entries(patched.body.metadata)).toEqual([["__proto__", "p2"], ["constructor", "c1"], ["x", "1"]]);
    const { products } = t.service.db.schema;
    const [row] = await t.service.db.read.select({ metadata: products.metadata }).from(products);
    expect(row.metadata).toBe('{"__proto__":"p2","constructor":"c1","x":"1"}');
    const read = await t.json("GET", `/v1/products/${id}`, { token });
    expect(Object.entries(read.body.metadata)).toEqual([["__proto__", "p2"], ["constructor", "c1"], ["x", "1"]]);
    const removed = await t.json("PATCH", `/v1/products/${id}`, { token, raw: '{"metadata":{"__proto__":null}}', headers: { "content-type": "application/json" } });
    expect(Object.entries(removed.body.metadata)).toEqual([["constructor", "c1"], ["x", "1"]]);
  });
});

describe("video metadata", () => {
  async function videoSetup() {
    const { token, image } = await setup();
    const product = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false } });
    const templates = (await t.json("GET", "/v1/templates", { token })).body.data as { id: string; premium: boolean }[];
    return { token, productId: product.body.id as string, templateId: templates.find((x) => !x.premium)!.id };
  }

  test("is stored on create and returned by create, GET and the list", async () => {
    const { token, productId, templateId } = await videoSetup();
    const res = await t.json("POST", "/v1/videos", { token, body: { template_id: templateId, product_id: productId, metadata: { order: "1042" } } });
    expect(res.status).toBe(202);
    expect(res.body.metadata).toEqual({ order: "1042" });
    expect((await t.json("GET", `/v1/videos/${res.body.id}`, { token })).body.metadata).toEqual({ order: "1042" });
    expect((await t.json("GET", "/v1/videos", { token })).body.data[0].metadata).toEqual({ order: "1042" });
  });

  test("a key named __proto__ is kept as an ordinary key", async () => {
    const { token, productId, templateId } = await videoSetup();
    const raw = JSON.stringify({ template_id: templateId, product_id: productId }).replace(/}$/, ',"metadata":{"__proto__":"p1"}}');
    const res = await t.json("POST", "/v1/videos", { token, raw, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(202);
    expect(Object.entries(res.body.metadata)).toEqual([["__proto__", "p1"]]);
    const { videos } = t.service.db.schema;
    const [row] = await t.service.db.read.select({ metadata: videos.metadata }).from(videos);
    expect(row.metadata).toBe('{"__proto__":"p1"}');
    expect(Object.entries((await t.json("GET", `/v1/videos/${res.body.id}`, { token })).body.metadata)).toEqual([["__proto__", "p1"]]);
  });

  test("a breach of the limits is a 422 naming metadata.<key>, and no credits are taken", async () => {
    const { token, productId, templateId } = await videoSetup();
    const res = await t.json("POST", "/v1/videos", { token, body: { template_id: templateId, product_id: productId, metadata: { order: "x".repeat(501) } } });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe("metadata.order");
    expect((await t.json("GET", "/v1/balance", { token })).body.credits).toBe(50);
  });

  test("the video.failed webhook carries it", async () => {
    const { token, productId, templateId } = await videoSetup();
    const res = await t.json("POST", "/v1/videos", {
      token,
      body: { template_id: templateId, product_id: productId, webhook_url: "http://127.0.0.1:9/hooks", metadata: { order: "1042" } },
    });
    await t.service.videos.fail(res.body.id, "render_failed", "test");
    const { webhookMessages } = t.service.db.schema;
    const [message] = await t.service.db.read.select().from(webhookMessages);
    expect(message.event).toBe("video.failed");
    expect(JSON.parse(message.payload).data.metadata).toEqual({ order: "1042" });
  });
});
