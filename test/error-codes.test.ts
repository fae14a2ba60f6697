// Machine-readable errors: every path that writes an error body carries the catalogue entry's stable snake_case `code`
// beside `error` and `message`, whichever layer answers (schema, guards, throttles, faults, idempotency, payments).
import { afterEach, describe, expect, test } from "bun:test";
import { errors } from "../src/kernel";
import { ADMIN_TOKEN, freePort, productPhoto, startService, type TestService } from "./helpers";

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

type Entry = keyof typeof errors;

/** The code the catalogue gives an entry (called with empty arguments: only the code is read). */
function catalogueCode(entry: Entry): string {
  const make = errors[entry] as (...args: unknown[]) => { code: string };
  return make(...Array.from({ length: make.length }, () => [])).code;
}

/** The answer is an error body of the catalogue entry `entry`, with its status and code. */
async function expectEntry(res: Response, entry: Entry) {
  const text = await res.text();
  const body = JSON.parse(text);
  const made = (errors[entry] as (...args: unknown[]) => { status: number; error: string })(
    ...Array.from({ length: errors[entry].length }, () => []),
  );
  expect({ status: res.status, error: body.error }).toEqual({ status: made.status, error: made.error });
  expect(body.code).toMatch(/^[a-z][a-z0-9_]*$/);
  expect(body.code).toBe(catalogueCode(entry));
  expect(typeof body.message).toBe("string");
  return body;
}

const photoUrl = async () => `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 320, 240)).toString("base64")}`;

describe("error codes", () => {
  test("every catalogue entry has its own snake_case code; entries share one only within one status and error", () => {
    const seen = new Map<string, string>();
    for (const entry of Object.keys(errors) as Entry[]) {
      const code = catalogueCode(entry);
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      const made = (errors[entry] as (...args: unknown[]) => { status: number; error: string })(
        ...Array.from({ length: errors[entry].length }, () => []),
      );
      const sameCode = seen.get(code);
      if (sameCode) expect(sameCode).toBe(`${made.status} ${made.error}`);
      seen.set(code, `${made.status} ${made.error}`);
    }
    expect(catalogueCode("productLimit")).toBe("product_limit_reached");
    expect(catalogueCode("insufficientCredits")).toBe("insufficient_credits");
    expect(catalogueCode("validation")).toBe("validation_failed");
    expect(catalogueCode("tooManyRequests")).toBe("rate_limited");
  });

  test("the request path's errors carry the code: parse, auth, schema, not found, idempotency, payments, limits", async () => {
    t = await startService({ VITRIN_MAX_BODY_BYTES: "4096" });
    const a = await t.newAccount({ credits: 0 });
    const token = a.token;
    await expectEntry(await t.call("GET", "/v1/products"), "unauthorized");
    await expectEntry(await t.call("GET", "/v1/products", { token: "vt_nope" }), "unauthorized");
    await expectEntry(await t.call("GET", "/v1/nothing-here", { token }), "notFound");
    await expectEntry(await t.call("GET", "/v1/products/prod_missing", { token }), "notFound");
    await expectEntry(await t.call("POST", "/v1/products", { token, raw: "{nope", headers: { "content-type": "application/json" } }), "badRequest");
    await expectEntry(await t.call("POST", "/v1/products", { token, raw: "name=x", headers: { "content-type": "text/plain" } }), "badRequest");
    await expectEntry(await t.call("POST", "/v1/products", { token, body: { name: "x", image_url: "y", colour: 1 } }), "validation");
    await expectEntry(await t.call("GET", "/v1/products?limit=1000", { token }), "validation");
    await expectEntry(await t.call("POST", "/v1/products", { token, body: { name: "x", image_url: "z".repeat(5000) } }), "bodyTooLarge");
    const gif = `data:image/gif;base64,${Buffer.from("GIF89a").toString("base64")}`;
    await expectEntry(await t.call("POST", "/v1/products", { token, body: { name: "Gif", image_url: gif, dekupe: false } }), "unsupportedImage");
    await expectEntry(await t.call("POST", "/v1/products", { token, headers: { "idempotency-key": "bad key\u0001" }, body: { name: "x", image_url: "https://shop.invalid/x.jpg" } }), "badRequest");
    await expectEntry(await t.call("POST", "/v1/payments/no-such-provider/webhook", { raw: "{}" }), "notFound");
    await expectEntry(await t.call("GET", "/v1/balance/top-ups/top_missing", { token }), "notFound");
    await expectEntry(await t.call("POST", "/v1/admin/accounts", { token: "wrong-admin-token", body: {} }), "unauthorized");
  });

  test("business rules carry the code: the product limit, credits, conflicts", async () => {
    t = await startService({}, { renderScale: 0.25 });
    const a = await t.newAccount({ credits: 0 });
    const token = a.token;
    const image = await photoUrl();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.json("POST", "/v1/products", { token, body: { name: `P${i}`, image_url: image, dekupe: false } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const sixth = await expectEntry(await t.call("POST", "/v1/products", { token, body: { name: "P6", image_url: image } }), "productLimit");
    expect(sixth).toMatchObject({ current_count: 5, max_allowed: 5 });
    const templates = (await t.json("GET", "/v1/templates", { token })).body.data as { id: string; premium: boolean }[];
    const template = templates.find((x) => !x.premium)!;
    const video = { template_id: template.id, product_id: ids[0] };
    await expectEntry(await t.call("POST", "/v1/videos", { token, body: video }), "insufficientCredits");
    const b = await t.newAccount();
    const key = { "idempotency-key": "same-key" };
    expect((await t.call("POST", "/v1/products", { token: b.token, headers: key, body: { name: "A", image_url: image, dekupe: false } })).status).toBe(201);
    const reused = { token: b.token, headers: key, body: { name: "B", image_url: image, dekupe: false } };
    await expectEntry(await t.call("POST", "/v1/products", reused), "conflict");
  });

  test("the throttles carry the code: per-token rate limit and wrong-token throttle", async () => {
    t = await startService({ VITRIN_RATE_LIMIT: "60", VITRIN_RATE_LIMIT_BURST: "1" });
    const a = await t.newAccount();
    expect((await t.call("GET", "/v1/products", { token: a.token })).status).toBe(200);
    await expectEntry(await t.call("GET", "/v1/products", { token: a.token }), "tooManyRequests");
  });

  test("a bug, a shutdown, a full disk: 500, 503 and 507 carry the code", async () => {
    t = await startService();
    t.service.app.get("/v1/boom", () => {
      throw new Error("boom");
    });
    t.service.app.get("/v1/full", () => {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    });
    await expectEntry(await t.call("GET", "/v1/boom"), "internal");
    await expectEntry(await t.call("GET", "/v1/full"), "insufficientStorage");
    const stopping = t.service.stop();
    await expectEntry(await t.call("GET", "/v1/products"), "unavailable");
    await stopping;
  });

  test("with the admin API off, /v1/admin answers that it is off and how to turn it on", async () => {
    t = await startService({ VITRIN_ADMIN_TOKEN: "" });
    for (const [method, path] of [
      ["POST", "/v1/admin/accounts"],
      ["GET", "/v1/admin/jobs/dead"],
      ["GET", "/v1/admin/no-such-thing"],
    ]) {
      const body = await expectEntry(await t.call(method, path, { token: ADMIN_TOKEN, body: method === "POST" ? {} : undefined }), "adminDisabled");
      expect(body.message).toContain("VITRIN_ADMIN_TOKEN");
    }
  });

  test("over HTTP, a body announced far over the cap is the catalogue's 413, not Bun's bare one", async () => {
    t = await startService({ VITRIN_MAX_BODY_BYTES: "4096" });
    const port = freePort();
    t.service.listen(port, "127.0.0.1");
    const a = await t.newAccount();
    const body = new Uint8Array(200 * 1024).fill(0x20);
    const res = await fetch(`http://127.0.0.1:${port}/v1/products`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
      body,
    });
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(await expectEntry(res, "bodyTooLarge")).toMatchObject({ max_size: 4096 });
  });

  test("a worker instance's 404 carries the code", async () => {
    t = await startService();
    const port = freePort();
    t.service.listenWorker(port, "127.0.0.1");
    await expectEntry(await fetch(`http://127.0.0.1:${port}/v1/products`), "workerOnly");
  });
});
