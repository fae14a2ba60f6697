// What /openapi.json promises of refusals and bodies, held against live answers: a body the document lets a client
// leave out is taken when left out; a keyed POST that reuses its key with another body is the 409 it lists; a write
// whose body is not JSON is the 400 it lists; and the 413 example gives this instance's own body limit.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";
import { answerOf } from "./support/openapi";

let t: TestService;
let token: string;
let doc: { paths: Record<string, Record<string, any>>; components: any };
beforeAll(async () => {
  t = await startService({ VITRIN_MAX_BODY_BYTES: "2000000" });
  token = (await t.newAccount({ credits: 5 })).token;
  doc = (await t.json("GET", "/openapi.json")).body;
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).filter(([, op]) => op.responses?.["422"]).map(([method, op]) => ({ path, method, op })));
const tokenFor = (op: any) => (op.security?.[0]?.adminBearer ? ADMIN_TOKEN : token);
// Ids that name nothing: an operation that takes its body's absence answers its own 404, never a 400 or 422.
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "nope_0");

test("every body the document marks optional may really be left out", async () => {
  const optional = operations().filter(({ op }) => op.requestBody?.required === false);
  expect(optional.length).toBeGreaterThan(5);
  for (const { path, method, op } of optional) {
    const res = await t.call(method.toUpperCase(), concrete(path), { token: tokenFor(op) });
    expect([400, 422].includes(res.status), `${method} ${path} answered ${res.status}: ${await res.text()}`).toBe(false);
  }
  // Bodies with a field to give are marked required.
  expect(doc.paths["/v1/products/{id}"].patch.requestBody.required).toBe(true);
  expect(doc.paths["/v1/videos"].post.requestBody.required).toBe(true);
});

test("every POST that takes an Idempotency-Key lists 409, and a key reused with another body answers it", async () => {
  const keyed = operations().filter(({ op }) => op.parameters?.some((p: { in: string; name: string }) => p.in === "header" && p.name === "idempotency-key"));
  expect(keyed.length).toBeGreaterThan(10);
  for (const { method, path, op } of keyed) expect(answerOf(doc, op, 409)?.content["application/json"].schema.$ref, `${method} ${path}`).toBe("#/components/schemas/Error");
  const send = (name: string) => t.json("POST", "/v1/tokens", { token, body: { name }, headers: { "idempotency-key": "reused-key-1" } });
  expect((await send("one")).status).toBe(201);
  const again = await send("two");
  expect(again.status).toBe(409);
  expect(again.body.code).toBe("conflict");
});

test("every write lists 400, and a body that is not JSON answers it", async () => {
  for (const { method, path, op } of operations()) {
    if (["post", "put", "patch", "delete"].includes(method)) expect(op.responses["400"], `${method} ${path}`).toBeDefined();
  }
  const res = await t.call("POST", "/v1/tokens", { token, raw: "{", headers: { "content-type": "application/json" } });
  expect(res.status).toBe(400);
});

test("the 413 example gives this instance's VITRIN_MAX_BODY_BYTES", () => {
  const example = answerOf(doc, doc.paths["/v1/products"].post, 413).content["application/json"].examples.body_too_large;
  expect(example.value).toMatchObject({ code: "body_too_large", max_size: 2000000 });
  expect(example.summary).toContain("2000000");
});

test("answers many operations share are written once under components and referenced, so the document stays small", () => {
  const refs = operations().flatMap(({ op }) => Object.values<any>(op.responses).map((a) => a.$ref).filter(Boolean));
  expect(refs.length).toBeGreaterThan(300);
  // Every reference names an answer that is there, each with the shared error schema and the rate-limit headers by reference.
  for (const ref of new Set(refs)) expect(doc.components.responses[ref.slice("#/components/responses/".length)], ref).toBeDefined();
  expect(doc.components.responses.Unauthorized.headers["RateLimit-Limit"]).toEqual({ $ref: "#/components/headers/RateLimit-Limit" });
  expect(doc.components.headers["RateLimit-Limit"].schema).toEqual({ type: "integer" });
  expect(doc.components.responses.Forbidden.description).toBe("Forbidden");
  expect(JSON.stringify(doc).length).toBeLessThan(250_000);
});

test("the shared answers have fixed names (a client's type names): a rename is a change to make on purpose", () => {
  const rated = ["BadRequest", "Conflict", "FileTooLarge", "Forbidden", "InternalError", "NotFound", "TooManyRequests", "Unauthorized", "Unavailable", "ValidationFailed"];
  expect(Object.keys(doc.components.responses).sort()).toEqual(
    [...rated, ...rated.map((n) => `${n}WithoutRateLimitHeaders`), "InsufficientCredits", "InsufficientStorage", "NotReadyOrShuttingDownWithoutRateLimitHeaders", "UnsupportedImageFormat"].sort(),
  );
});

test("no schema carries Elysia's `error` message option, which linters refuse (a property named error stays)", () => {
  const found: string[] = [];
  const walk = (node: unknown, at: string, names: boolean) => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`, false));
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (!names && key === "error" && typeof value === "string") found.push(at);
      if (key !== "examples" && key !== "example") walk(value, `${at}/${key}`, key === "properties" || key === "patternProperties");
    }
  };
  walk(doc, "", false);
  expect(found).toEqual([]);
  expect(doc.components.schemas.Error.properties.error.type).toBe("string");
  // The option is still there for the server's own refusals: the brand's logo field says what it takes.
  expect(doc.paths["/v1/brand"].put.requestBody.content["application/json"].schema.properties.logo).toBeDefined();
});

test("every webhook event is an operation with an identifier of its own", () => {
  const ids = Object.values<any>((doc as any).webhooks).map((item) => item.post.operationId);
  expect(ids).toContain("webhookVideoCompleted");
  expect(ids).toContain("webhookProductDekupeFailed");
  expect(ids.every((id: string) => /^webhook[A-Z][A-Za-z]*$/.test(id))).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
});

test("metadata in a body is typed as the string values it takes (the server checks it as any, to name a bad key)", () => {
  const metadata = doc.paths["/v1/products/{id}"].patch.requestBody.content["application/json"].schema.properties.metadata;
  expect(metadata.type).toEqual(["object", "null"]);
  expect(metadata.additionalProperties).toEqual({ anyOf: [{ type: "string", maxLength: 500 }, { type: "null" }] });
  expect(metadata["x-documented-as"]).toBeUndefined();
});
