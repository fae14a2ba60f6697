// The product catalog over the API: fields, the 5-product limit, tenant isolation, PATCH, DELETE, images, pagination.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fetchStored, onS3, productPhoto, startImageHost, startService, storedBytes, storedKeys, storageKeyOf, type ImageHost, type TestService } from "./helpers";

let host: ImageHost;
let photo: Uint8Array;
let t: TestService;
let acct: { id: string; token: string };

beforeAll(async () => {
  photo = await productPhoto("jpeg");
  host = startImageHost({
    "/mug.jpg": { body: photo, type: "image/jpeg" },
    "/mug.png": { body: await productPhoto("png", 300, 200), type: "image/png" },
    "/notes.txt": { body: "just text, not an image", type: "image/png" },
  });
});
afterAll(() => host.close());

beforeEach(async () => {
  t = await startService();
  acct = await t.newAccount();
});
afterEach(async () => {
  await t.close();
});

const create = (body: Record<string, unknown>, token = acct.token, headers?: Record<string, string>) =>
  t.json("POST", "/v1/products", { token, body, headers });

describe("POST /v1/products", () => {
  test("creates a product with the contract's fields and a stored copy of the image", async () => {
    const res = await create({ name: "Mug", description: "Stoneware", image_url: host.url("/mug.jpg"), dekupe: false });
    expect(res.status).toBe(201);
    const p = res.body;
    expect(p.id).toMatch(/^prod_/);
    expect(p.name).toBe("Mug");
    expect(p.description).toBe("Stoneware");
    expect(p.image_url).toMatch(onS3 ? /^http:\/\/127\.0\.0\.1:\d+\/bucket-[^/]+\/products\/prod_/ : /^http:\/\/vitrin\.test\/files\/products\/prod_/);
    expect(storageKeyOf(p.original_image_url)).toBe(storageKeyOf(p.image_url));
    expect(p.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(p.dekupe.status).toBe("off");
    const file = await fetchStored(t, p.image_url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(photo))).toBe(true);
  });

  test("dekupe defaults to true: processing at once, ready after the job runs", async () => {
    const res = await create({ name: "Mug", image_url: host.url("/mug.jpg") });
    expect(res.status).toBe(201);
    expect(res.body.dekupe.status).toBe("processing");
    expect(res.body.dekupe.retries_left).toBe(3);
    expect(await t.runJobs()).toBeGreaterThan(0);
    const after = await t.json("GET", `/v1/products/${res.body.id}`, { token: acct.token });
    expect(after.body.dekupe.status).toBe("ready");
    expect(storageKeyOf(after.body.image_url)).not.toBe(storageKeyOf(after.body.original_image_url));
    expect(storageKeyOf(after.body.image_url)).toEndWith(".png");
    const png = await fetchStored(t, after.body.image_url);
    expect(png.headers.get("content-type")).toBe("image/png");
  });

  test("the sixth product is refused with the contract's 403 body", async () => {
    for (let i = 0; i < 5; i++) expect((await create({ name: `P${i}`, image_url: host.url("/mug.jpg"), dekupe: false })).status).toBe(201);
    const res = await create({ name: "P6", image_url: host.url("/mug.jpg"), dekupe: false });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: "Product limit reached",
      code: "product_limit_reached",
      message: expect.any(String),
      current_count: 5,
      max_allowed: 5,
    });
  });

  test("50 parallel creates on an empty account give exactly 5 products", async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => create({ name: `P${i}`, image_url: host.url("/mug.jpg"), dekupe: false })),
    );
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(codes.filter((c) => c === 403)).toHaveLength(45);
    const list = await t.json("GET", "/v1/products?limit=100", { token: acct.token });
    expect(list.body.data).toHaveLength(5);
    // Refused creates leave no stored file behind.
    const files = (await storedKeys(t, "products/")).filter((k) => /\/original-/.test(k));
    expect(files).toHaveLength(5);
  });

  test("an unknown field is a 422 naming it", async () => {
    const res = await create({ name: "Mug", image_url: host.url("/mug.jpg"), colour: "red" });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("Validation failed");
    expect(res.body.details).toContainEqual({ field: "colour", message: "is not a known field" });
  });

  test("a missing name is a 422 with details", async () => {
    const res = await create({ image_url: host.url("/mug.jpg") });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain("name");
  });

  test("a body that is not JSON is a 400", async () => {
    const res = await t.json("POST", "/v1/products", {
      token: acct.token,
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Bad request");
  });

  test("a form-encoded body is a 400 asking for JSON", async () => {
    const res = await t.json("POST", "/v1/products", {
      token: acct.token,
      raw: "name=Mug",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("application/json");
  });

  test("a file that is not JPG, PNG or WebP is a 415 judged by its bytes", async () => {
    const res = await create({ name: "Notes", image_url: host.url("/notes.txt") });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe("Unsupported image format");
    expect(res.body.allowed).toEqual(["image/jpeg", "image/png", "image/webp"]);
  });

  test("an image over 5 MB is a 413 with max_size", async () => {
    const big = new Uint8Array(5 * 1024 * 1024 + 10);
    big.set(photo.subarray(0, 3));
    const bigHost = startImageHost({ "/big.jpg": { body: big, type: "image/jpeg" } });
    try {
      const res = await create({ name: "Big", image_url: bigHost.url("/big.jpg") });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: "File too large", code: "file_too_large", message: expect.any(String), max_size: 5242880, field: "image_url" });
    } finally {
      bigHost.close();
    }
  });

  test("a data: URL is accepted", async () => {
    const dataUrl = `data:image/jpeg;base64,${Buffer.from(photo).toString("base64")}`;
    const res = await create({ name: "Inline", image_url: dataUrl, dekupe: false });
    expect(res.status).toBe(201);
  });
});

describe("outbound address rules", () => {
  test("with private networks refused, a loopback image host is never contacted", async () => {
    const strict = await startService({ VITRIN_ALLOW_PRIVATE_NETWORKS: "false" });
    const guarded = startImageHost({ "/mug.jpg": { body: photo, type: "image/jpeg" } });
    try {
      const a = await strict.newAccount();
      const res = await strict.json("POST", "/v1/products", {
        token: a.token,
        body: { name: "Mug", image_url: guarded.url("/mug.jpg") },
      });
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe("image_url");
      expect(guarded.hits).toHaveLength(0);
    } finally {
      guarded.close();
      await strict.close();
    }
  });
});

describe("tenant isolation", () => {
  test("another account's product is 404 on GET, PATCH and DELETE and absent from its list", async () => {
    const mine = await create({ name: "Mine", image_url: host.url("/mug.jpg"), dekupe: false });
    const other = await t.newAccount();
    const path = `/v1/products/${mine.body.id}`;
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { name: "Theirs" }],
      ["DELETE", undefined],
    ] as const) {
      const res = await t.json(method, path, { token: other.token, body });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("Not found");
    }
    const list = await t.json("GET", "/v1/products", { token: other.token });
    expect(list.body).toEqual({ data: [], has_more: false });
    expect((await t.json("GET", path, { token: acct.token })).body.name).toBe("Mine");
  });
});

describe("PATCH and DELETE", () => {
  test("PATCH changes only the given fields", async () => {
    const p = await create({ name: "Mug", description: "Old", image_url: host.url("/mug.jpg"), dekupe: false });
    t.clock.advance(1000);
    const res = await t.json("PATCH", `/v1/products/${p.body.id}`, { token: acct.token, body: { name: "Big mug" } });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe("Big mug");
    expect(res.body.description).toBe("Old");
    expect(storageKeyOf(res.body.image_url)).toBe(storageKeyOf(p.body.image_url));
    expect(res.body.updated_at).not.toBe(p.body.updated_at);
  });

  test("PATCH image_url stores the new image, removes the old file and cleans it again", async () => {
    const p = await create({ name: "Mug", image_url: host.url("/mug.jpg") });
    await t.runJobs();
    const before = (await t.json("GET", `/v1/products/${p.body.id}`, { token: acct.token })).body;
    const oldFiles: string[] = [before.original_image_url, before.image_url];
    for (const f of oldFiles) expect(await storedBytes(t, f)).not.toBeNull();
    const res = await t.json("PATCH", `/v1/products/${p.body.id}`, { token: acct.token, body: { image_url: host.url("/mug.png") } });
    expect(res.status).toBe(200);
    expect(storageKeyOf(res.body.original_image_url)).toEndWith(".png");
    expect(res.body.dekupe.status).toBe("processing");
    for (const f of oldFiles) expect(await storedBytes(t, f)).toBeNull();
    await t.runJobs();
    expect((await t.json("GET", `/v1/products/${p.body.id}`, { token: acct.token })).body.dekupe.status).toBe("ready");
  });

  test("PATCH with an empty body is a 422", async () => {
    const p = await create({ name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false });
    const res = await t.json("PATCH", `/v1/products/${p.body.id}`, { token: acct.token, body: {} });
    expect(res.status).toBe(422);
  });

  test("DELETE answers {id, deleted: true} and removes the stored files", async () => {
    const p = await create({ name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false });
    expect(await storedBytes(t, p.body.image_url)).not.toBeNull();
    const res = await t.json("DELETE", `/v1/products/${p.body.id}`, { token: acct.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: p.body.id, object: "product", deleted: true });
    expect(await storedBytes(t, p.body.image_url)).toBeNull();
    expect((await t.json("GET", `/v1/products/${p.body.id}`, { token: acct.token })).status).toBe(404);
  });
});

describe("pagination", () => {
  async function seed(n: number) {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      t.clock.advance(10);
      ids.push((await create({ name: `P${i}`, image_url: host.url("/mug.jpg"), dekupe: false })).body.id);
    }
    return ids;
  }

  test("newest first, limit and has_more", async () => {
    const ids = await seed(3);
    const page = await t.json("GET", "/v1/products?limit=2", { token: acct.token });
    expect(page.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.has_more).toBe(true);
  });

  test("starting_after walks older pages without duplicates or gaps while rows are inserted", async () => {
    const first = await seed(3);
    const page1 = await t.json("GET", "/v1/products?limit=2", { token: acct.token });
    await seed(2); // newer rows arrive between page requests
    const last = page1.body.data[1].id;
    const page2 = await t.json("GET", `/v1/products?limit=2&starting_after=${last}`, { token: acct.token });
    const seen = [...page1.body.data, ...page2.body.data].map((p: { id: string }) => p.id);
    expect(seen).toEqual([first[2], first[1], first[0]]);
    expect(page2.body.has_more).toBe(false);
  });

  test("ending_before walks back towards newer rows", async () => {
    const ids = await seed(4);
    const res = await t.json("GET", `/v1/products?limit=2&ending_before=${ids[0]}`, { token: acct.token });
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    expect(res.body.has_more).toBe(true);
  });

  test("a limit outside 1–100 is a 422", async () => {
    for (const limit of ["0", "101", "abc"]) {
      const res = await t.json("GET", `/v1/products?limit=${limit}`, { token: acct.token });
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe("limit");
    }
  });

  test("a cursor that is not the caller's product is a 422", async () => {
    const other = await t.newAccount();
    const theirs = await create({ name: "Theirs", image_url: host.url("/mug.jpg"), dekupe: false }, other.token);
    const res = await t.json("GET", `/v1/products?starting_after=${theirs.body.id}`, { token: acct.token });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe("starting_after");
  });
});
