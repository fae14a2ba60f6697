// Products from browser forms: POST /v1/products and PATCH /v1/products/:id take multipart/form-data (file field
// `image`, the other fields as text, metadata as JSON text or metadata[key] fields) with the JSON body's validation and
// errors, and the byte cap is enforced while the upload streams in.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { BASE, productPhoto, startService, storageKeyOf, storedBytes, type TestService } from "./helpers";

let t: TestService;
let jpeg: Uint8Array;
let png: Uint8Array;
beforeAll(async () => {
  jpeg = await productPhoto("jpeg", 320, 240);
  png = await productPhoto("png", 200, 200);
});
afterEach(async () => {
  await t?.close();
});

async function setup(env: Record<string, string> = {}) {
  t = await startService(env);
  return (await t.newAccount()).token;
}

function form(fields: Record<string, string | Blob>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === "string") f.append(k, v);
    else f.append(k, v, v instanceof File ? v.name : "upload.bin");
  }
  return f;
}

async function send(method: string, path: string, token: string, body: FormData | ReadableStream, headers: Record<string, string> = {}) {
  const res = await t.service.handle(
    new Request(`${BASE}${path}`, { method, body, headers: { authorization: `Bearer ${token}`, ...headers }, duplex: "half" } as RequestInit),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const photo = (bytes: Uint8Array, name = "mug.jpg", type = "image/jpeg") => new File([bytes], name, { type });

describe("POST /v1/products as multipart/form-data", () => {
  test("one Idempotency-Key with another uploaded image is a 409; with the same image it replays", async () => {
    const token = await setup();
    const headers = { "idempotency-key": "upload-1" };
    const first = await send("POST", "/v1/products", token, form({ name: "Mug", dekupe: "false", image: photo(jpeg) }), headers);
    const same = await send("POST", "/v1/products", token, form({ name: "Mug", dekupe: "false", image: photo(jpeg) }), headers);
    const other = await send("POST", "/v1/products", token, form({ name: "Mug", dekupe: "false", image: photo(png, "mug.png", "image/png") }), headers);
    expect([first.status, same.status, same.body.id, other.status]).toEqual([201, 201, first.body.id, 409]);
  });

  test("creates the product from the uploaded file and the text fields", async () => {
    const token = await setup();
    const res = await send("POST", "/v1/products", token, form({ name: "Mug", description: "350 ml", dekupe: "false", image: photo(jpeg) }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: "Mug", description: "350 ml", dekupe: { enabled: false, status: "off" }, metadata: {} });
    expect(Buffer.from((await storedBytes(t, res.body.original_image_url))!).equals(Buffer.from(jpeg))).toBe(true);
  });

  test("metadata as metadata[key] fields, or as JSON text", async () => {
    const token = await setup();
    const keyed = await send("POST", "/v1/products", token, form({ name: "A", image: photo(jpeg), "metadata[sku]": "MUG-1", "metadata[shelf]": "b2" }));
    expect(keyed.status).toBe(201);
    expect(keyed.body.metadata).toEqual({ sku: "MUG-1", shelf: "b2" });
    const text = await send("POST", "/v1/products", token, form({ name: "B", image: photo(jpeg), metadata: '{"sku":"MUG-2"}' }));
    expect(text.body.metadata).toEqual({ sku: "MUG-2" });
    // A key named like an object's built-ins is an ordinary key, as in a JSON body.
    const proto = await send("POST", "/v1/products", token, form({ name: "C", image: photo(jpeg), "metadata[__proto__]": "1", "metadata[constructor]": "2" }));
    expect(proto.status).toBe(201);
    expect(JSON.parse(JSON.stringify(proto.body.metadata))).toEqual(JSON.parse('{"__proto__":"1","constructor":"2"}'));
  });

  test("the JSON body's errors: a missing name, an unknown field, a file that is no image, both image and image_url", async () => {
    const token = await setup();
    const noName = await send("POST", "/v1/products", token, form({ image: photo(jpeg) }));
    expect(noName.status).toBe(422);
    expect(noName.body.details[0].field).toBe("name");
    const unknown = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(jpeg), colour: "red" }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.details[0].field).toBe("colour");
    const notImage = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(new TextEncoder().encode("just text"), "mug.jpg") }));
    expect([notImage.status, notImage.body.field]).toEqual([415, "image"]);
    const truncated = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(jpeg.slice(0, jpeg.length / 2)) }));
    expect(truncated.status).toBe(422);
    expect(truncated.body.details[0].field).toBe("image");
    const both = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(jpeg), image_url: "https://example.com/mug.jpg" }));
    expect(both.status).toBe(422);
    expect(both.body.details[0].field).toBe("image");
    const badMeta = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(jpeg), "metadata[note]": "x".repeat(501) }));
    expect(badMeta.status).toBe(422);
    expect(badMeta.body.details[0].field).toBe("metadata.note");
    const badDekupe = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(jpeg), dekupe: "maybe" }));
    expect(badDekupe.status).toBe(422);
    expect(badDekupe.body.details[0].field).toBe("dekupe");
    // Nothing of the refused requests was kept.
    expect((await t.json("GET", "/v1/products", { token })).body.data).toEqual([]);
  });

  test("without image or image_url it is a 422 naming image_url", async () => {
    const token = await setup();
    const res = await send("POST", "/v1/products", token, form({ name: "Mug" }));
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe("image_url");
  });

  test("an empty file input (what a browser sends when no file is chosen) counts as no file", async () => {
    const token = await setup();
    const image = `data:image/jpeg;base64,${Buffer.from(jpeg).toString("base64")}`;
    const res = await send("POST", "/v1/products", token, form({ name: "Mug", image: new File([], ""), image_url: image, dekupe: "false" }));
    expect(res.status).toBe(201);
  });

  test("an upload over the form's cap, announced by Content-Length, is refused as the image: file_too_large with the image limit", async () => {
    const token = await setup();
    const big = new Uint8Array(6.3 * 1024 * 1024);
    big.set(jpeg);
    const body = form({ name: "Mug", image: photo(big) });
    const length = String((await new Response(body).arrayBuffer()).byteLength);
    const res = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(big) }), { "content-length": length });
    expect([res.status, res.body.code, res.body.max_size, res.body.field]).toEqual([413, "file_too_large", 5 * 1024 * 1024, "image"]);
  });

  test("an image over 5 MB is a 413 File too large", async () => {
    const token = await setup();
    const big = new Uint8Array(5 * 1024 * 1024 + 1);
    big.set(jpeg);
    const res = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(big) }));
    expect(res.status).toBe(413);
    expect([res.body.max_size, res.body.field]).toEqual([5 * 1024 * 1024, "image"]);
  });

  test("a body past VITRIN_MAX_BODY_BYTES is a 413 as soon as it passes, without reading the rest", async () => {
    const token = await setup({ VITRIN_MAX_BODY_BYTES: String(1024 * 1024) });
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    let pulled = 0;
    // An upload that never ends, with no Content-Length: only counting while reading can stop it.
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(pulled === 1 ? new TextEncoder().encode('--b\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\n') : chunk);
      },
    });
    const res = await send("POST", "/v1/products", token, endless, { "content-type": "multipart/form-data; boundary=b" });
    expect([res.status, res.body.code]).toEqual([413, "file_too_large"]);
    expect(res.body.max_size).toBe(1024 * 1024);
    expect(pulled * chunk.length).toBeLessThan(2 * 1024 * 1024);
  });
});

test("with the default body cap, an upload is still cut at the image cap plus 1 MiB as it streams in", async () => {
  const token = await setup();
  const chunk = new Uint8Array(256 * 1024).fill(0x61);
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(pulled === 1 ? new TextEncoder().encode('--b\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\n') : chunk);
    },
  });
  const res = await send("POST", "/v1/products", token, endless, { "content-type": "multipart/form-data; boundary=b" });
  // Refused as the image it carries: the image limit, not the form's 6 MiB cap.
  expect([res.status, res.body.code]).toEqual([413, "file_too_large"]);
  expect(res.body.max_size).toBe(5 * 1024 * 1024);
  // Well below the 8 MiB VITRIN_MAX_BODY_BYTES default: the JSON routes' cap is not what stopped it.
  expect(pulled * chunk.length).toBeLessThan(7 * 1024 * 1024);
});

describe("PATCH /v1/products/:id as multipart/form-data", () => {
  test("replaces the image with the uploaded file and merges metadata fields", async () => {
    const token = await setup();
    const created = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(jpeg), dekupe: "false", "metadata[a]": "1", "metadata[b]": "2" }));
    const res = await send("PATCH", `/v1/products/${created.body.id}`, token, form({ image: photo(png, "mug.png", "image/png"), "metadata[a]": "", "metadata[c]": "3" }));
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual({ b: "2", c: "3" });
    expect(storageKeyOf(res.body.original_image_url)).toEndWith(".png");
    expect(Buffer.from((await storedBytes(t, res.body.original_image_url))!).equals(Buffer.from(png))).toBe(true);
    expect((await send("PATCH", `/v1/products/${created.body.id}`, token, form({ metadata: "" }))).body.metadata).toEqual({});
  });

  test("a field sent twice is a 422 naming it", async () => {
    const token = await setup();
    const created = await send("POST", "/v1/products", token, form({ name: "Mug", image: photo(jpeg), dekupe: "false" }));
    const f = form({ name: "One" });
    f.append("name", "Two");
    const res = await send("PATCH", `/v1/products/${created.body.id}`, token, f);
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe("name");
  });
});

test("other routes still take JSON only", async () => {
  const token = await setup();
  const res = await send("PUT", "/v1/webhooks/endpoint", token, form({ url: "https://example.com/hook" }));
  expect(res.status).toBe(400);
});
