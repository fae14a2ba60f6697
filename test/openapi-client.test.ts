// /openapi.json is complete enough to generate a client from: openapi-typescript turns the live document into types,
// a client flow written with openapi-fetch type-checks strictly against them (and a wrong use does not), and the same
// flow then runs over HTTP against the instance, its answers matching the documented schemas.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { Type, type TSchema } from "@sinclair/typebox";
import * as schemas from "../src/http/openapi-schemas";
import { WEBHOOK_EVENTS } from "../src/webhooks";
import { ADMIN_TOKEN, productPhoto, startService, tempDir, type TestService } from "./helpers";
import { answerOf } from "./support/openapi";

const ROOT = join(import.meta.dir, "..");
let t: TestService;
let server: ReturnType<typeof Bun.serve>;
let base: string;
let hooks = 0;

beforeAll(async () => {
  t = await startService();
  // The instance over real HTTP; /hook stands in for the customer's webhook receiver.
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      if (new URL(req.url).pathname === "/hook") {
        hooks++;
        return new Response("ok");
      }
      return t.service.handle(req);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  server?.stop(true);
  await t?.close();
});

/**
 * A project folder for the generated client: node_modules links to vitrin's own, except that `typescript` is the
 * TypeScript 5 that openapi-typescript is written against (the repository's own is TypeScript 7, with no compiler API).
 */
function clientProject(): string {
  const dir = tempDir("vitrin-client-");
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name !== "typescript") symlinkSync(join(ROOT, "node_modules", name), join(modules, name));
  }
  symlinkSync(join(ROOT, "node_modules", "typescript5"), join(modules, "typescript"));
  return dir;
}

/** The client flow a user would write: every call typed by the generated `paths`. */
const FLOW = `
import createClient from "openapi-fetch";
import type { paths } from "./vitrin";

export function client(baseUrl: string, token: string) {
  return createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } });
}
type Client = ReturnType<typeof client>;

export async function createProduct(api: Client, imageUrl: string) {
  const { data, error, response } = await api.POST("/v1/products", {
    body: { name: "Ceramic mug", description: "Blue glaze", image_url: imageUrl, metadata: { sku: "MUG-1" } },
    headers: { "idempotency-key": "create-mug-1" },
  });
  if (error) throw new Error(error.code + ": " + error.message);
  return { status: response.status, product: data, name: data.name, dekupe: data.dekupe.status };
}

export async function uploadProduct(api: Client, photo: Blob) {
  // A form upload: the generated type names the fields (the file as a string, as OpenAPI types binary); the form is
  // what goes out, and fetch gives it its multipart boundary.
  const { data, error, response } = await api.POST("/v1/products", {
    body: { name: "Linen bag", image_url: "" },
    bodySerializer() {
      const form = new FormData();
      form.set("name", "Linen bag");
      form.set("image", photo, "bag.jpg");
      return form;
    },
  });
  if (error) throw new Error(error.code + ": " + error.message);
  return { status: response.status, product: data };
}

export async function startVideo(api: Client, productId: string, hook: string) {
  const dekupe = await api.GET("/v1/products/{id}/dekupe", { params: { path: { id: productId } } });
  const templates = await api.GET("/v1/templates");
  if (!templates.data) throw new Error("no templates");
  const template = templates.data.data.find((x) => !x.premium && x.aspect === "9:16") ?? templates.data.data[0];
  const request = { template_id: template.id, product_id: productId, aspect_ratio: "1:1" as const, webhook_url: hook };
  const estimate = await api.POST("/v1/videos/estimate", { body: request });
  const created = await api.POST("/v1/videos", { body: request });
  if (!created.data) throw new Error("no video: " + created.error?.code);
  const missing = await api.GET("/v1/videos/{id}", { params: { path: { id: "vid_missing" } } });
  return {
    dekupe: dekupe.data,
    templates: templates.data,
    template_id: template.id,
    credits: template.credits,
    estimate: estimate.data,
    video: created.data,
    video_status: created.response.status,
    missing: { status: missing.response.status, code: missing.error?.code },
  };
}

export async function afterRender(api: Client, videoId: string, productId: string) {
  const video = await api.GET("/v1/videos/{id}", { params: { path: { id: videoId } } });
  const list = await api.GET("/v1/videos", { params: { query: { status: "completed", product_id: productId, limit: 10 } } });
  const balance = await api.GET("/v1/balance");
  const transactions = await api.GET("/v1/balance/transactions");
  const deliveries = await api.GET("/v1/webhooks/deliveries", { params: { query: { video_id: videoId } } });
  const reverted = await api.POST("/v1/products/{id}/dekupe/revert", { params: { path: { id: productId } }, body: {} });
  // Typed as the product: a wrong documented answer (the dekupe state) has no \`object\` and fails to type-check.
  const revertedKind: "product" | undefined = reverted.data?.object;
  return {
    reverted: reverted.data,
    revertedKind,
    video: video.data,
    list: list.data,
    credits: balance.data?.credits,
    balance: balance.data,
    transactions: transactions.data,
    deliveries: deliveries.data,
    events: deliveries.data?.data.map((m) => m.event),
  };
}
`;

/** Uses the generated types wrongly: tsc has to refuse each line, or the types say nothing. */
const MISUSE = `
import type { paths } from "./vitrin";
import createClient from "openapi-fetch";
const api = createClient<paths>({ baseUrl: "http://localhost" });
export async function wrong() {
  await api.POST("/v1/products", { body: { title: "no name field" } });
  const v = await api.GET("/v1/videos/{id}", { params: { path: { id: "x" } } });
  const n: number = v.data!.status;
  await api.GET("/v1/no-such-route");
  return n;
}
`;

function run(cmd: string[], cwd: string) {
  const out = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: out.exitCode, text: out.stdout.toString() + out.stderr.toString() };
}

test("a client generated from /openapi.json type-checks strictly and runs the product-to-video flow over HTTP", async () => {
  const dir = clientProject();
  const doc = await (await fetch(`${base}/openapi.json`)).json();
  writeFileSync(join(dir, "openapi.json"), JSON.stringify(doc));
  const gen = run(["node", "--preserve-symlinks", "--preserve-symlinks-main", "node_modules/openapi-typescript/bin/cli.js", "openapi.json", "-o", "vitrin.d.ts"], dir);
  expect(gen.code, gen.text).toBe(0);

  writeFileSync(join(dir, "flow.ts"), FLOW);
  writeFileSync(join(dir, "misuse.ts"), MISUSE);
  const options = { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "bundler", skipLibCheck: true, lib: ["ES2022", "DOM"] };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: options, files: ["flow.ts"] }));
  writeFileSync(join(dir, "tsconfig.misuse.json"), JSON.stringify({ compilerOptions: options, files: ["misuse.ts"] }));
  const tsc = join(ROOT, "node_modules/.bin/tsc");
  const good = run([tsc, "-p", "tsconfig.json"], dir);
  expect(good.text).toBe("");
  expect(good.code).toBe(0);
  const bad = run([tsc, "-p", "tsconfig.misuse.json"], dir);
  expect(bad.code).not.toBe(0);
  // One refusal per wrong line (lines 6, 8 and 9 of MISUSE).
  for (const line of [6, 8, 9]) expect(bad.text).toContain(`misuse.ts(${line},`);

  const flow = await import(join(dir, "flow.ts"));
  const acct = await t.newAccount({ credits: 100 });
  const api = flow.client(base, acct.token);
  const photo = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg")).toString("base64")}`;

  const uploaded = await flow.uploadProduct(api, new Blob([await productPhoto("jpeg")], { type: "image/jpeg" }));
  expect(uploaded.status).toBe(201);
  expect(uploaded.product.name).toBe("Linen bag");
  expect(new URL(uploaded.product.original_image_url).pathname).toMatch(/\/original-[^/]+\.jpg$/);

  const made = await flow.createProduct(api, photo);
  expect(made.status).toBe(201);
  expect(made.name).toBe("Ceramic mug");
  expect(Value.Check(schemas.product, made.product)).toBe(true);
  await t.runJobs();

  const started = await flow.startVideo(api, made.product.id, `${base}/hook`);
  expect(Value.Check(schemas.dekupe, started.dekupe)).toBe(true);
  expect(Value.Check(page(schemas.template), started.templates)).toBe(true);
  expect(Value.Check(schemas.estimate, started.estimate)).toBe(true);
  expect(started.estimate).toMatchObject({ credits: started.credits, sufficient: true, aspect_ratio: "1:1" });
  expect(started.video_status).toBe(202);
  expect(Value.Check(schemas.video, started.video)).toBe(true);
  expect(started.missing).toEqual({ status: 404, code: "not_found" });
  await t.runJobs();

  const done = await flow.afterRender(api, started.video.id, made.product.id);
  expect(done.video.status).toBe("completed");
  expect(Value.Check(schemas.video, done.video)).toBe(true);
  expect(done.list.data.map((v: { id: string }) => v.id)).toEqual([started.video.id]);
  expect(done.credits).toBe(100 - started.credits);
  expect(Value.Check(schemas.balance, done.balance)).toBe(true);
  expect(Value.Check(page(schemas.transaction), done.transactions)).toBe(true);
  expect(done.transactions.data.length).toBeGreaterThan(0);
  expect(Value.Check(page(schemas.webhookMessage), done.deliveries)).toBe(true);
  expect(done.events).toEqual(["video.completed"]);
  expect(done.revertedKind).toBe("product");
  expect(Value.Check(schemas.product, done.reverted)).toBe(true);
  expect(hooks).toBeGreaterThan(0);
}, 90_000);

test("the webhooks section documents every event an endpoint can subscribe to, and ping", async () => {
  const doc = (await t.json("GET", "/openapi.json")).body;
  expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENTS, "ping"].sort());
  const completed = doc.webhooks["video.completed"].post.requestBody.content["application/json"].schema;
  expect(completed.properties.event.const).toBe("video.completed");
  expect(completed.properties.data.$ref).toBe("#/components/schemas/Video");
  expect(doc.components.schemas.Video.properties.object.const).toBe("video");
});

/**
 * Routes that declare Elysia `response:` schemas (validated at run time): the plugin then writes their responses from
 * those alone, so their errors are not in the document yet.
 */
const RESPONSE_VALIDATED = ["/v1/webhook_endpoints"];

test("every operation documents a success answer, its errors in the shared schema, and who may call it", async () => {
  const doc = (await t.json("GET", "/openapi.json")).body;
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const statuses = Object.keys(op.responses ?? {});
      expect(statuses.some((s) => s.startsWith("2")), `${method} ${path}`).toBe(true);
      const isPublic = path === "/healthz" || path === "/readyz" || path === "/metrics" || path.startsWith("/v1/payments/");
      if (isPublic || RESPONSE_VALIDATED.some((prefix) => path.startsWith(prefix))) continue;
      expect(answerOf(doc, op, 401)?.content["application/json"].schema.$ref, `${method} ${path}`).toBe("#/components/schemas/Error");
      if (path.startsWith("/v1/admin")) expect(op.security, `${method} ${path}`).toEqual([{ adminBearer: [] }]);
    }
  }
  // Every POST behind an account or admin token honours Idempotency-Key (src/http/guard.ts, the admin routes' hooks).
  const idempotent = Object.entries<Record<string, any>>(doc.paths).filter(([path, item]) => {
    const post = item.post;
    return post && path.startsWith("/v1/") && !path.startsWith("/v1/payments/") && !path.startsWith("/v1/admin/top-ups") && !path.startsWith("/v1/admin/jobs");
  });
  for (const [path, item] of idempotent) {
    expect(item.post.parameters?.map((p: { name: string }) => p.name) ?? [], `POST ${path}`).toContain("idempotency-key");
  }
  expect(Object.keys(answerOf(doc, doc.paths["/v1/videos"].post, 402).content["application/json"].examples)).toEqual(["insufficient_credits"]);
});

test("every operation lists 413 (a body over the cap is refused before routing); every write behind a token lists the CSRF 403", async () => {
  const doc = (await t.json("GET", "/openapi.json")).body;
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    if (RESPONSE_VALIDATED.some((prefix) => path.startsWith(prefix))) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op.responses["422"]) continue; // Elysia's own documentation routes (/docs, /openapi.json)
      expect(answerOf(doc, op, 413)?.content["application/json"].schema.$ref, `${method} ${path}`).toBe("#/components/schemas/Error");
      if (!["post", "put", "patch", "delete"].includes(method) || !op.responses["401"]) continue;
      expect(Object.keys(answerOf(doc, op, 403)?.content["application/json"].examples ?? {}), `${method} ${path}`).toContain("csrf_failed");
    }
  }
  // Reads never check the CSRF header: a GET lists 403 only where it has a reason of its own.
  expect(doc.paths["/v1/products"].get.responses["403"]).toBeUndefined();
});

test("generators get identifiers, named objects, numbers for limit, bodies that may be left out, and typed error fields", async () => {
  const doc = (await t.json("GET", "/openapi.json")).body;
  expect(doc.servers).toEqual([{ url: expect.stringMatching(/^http/) }]);
  const ops = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ path, method, op })));
  expect(ops.filter(({ op }) => !/^[A-Za-z][A-Za-z0-9]*$/.test(op.operationId)).map(({ op }) => op.operationId)).toEqual([]);
  expect(new Set(ops.map(({ op }) => op.operationId)).size).toBe(ops.length);
  expect(doc.paths["/v1/balance/top-up"].post.operationId).toBe("postV1BalanceTopUp");
  // Every operation can answer 422 (`expand` is refused on every route).
  expect(ops.filter(({ op }) => !op.responses["422"]).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  expect(doc.paths["/v1/products/{id}/dekupe/revert"].post.requestBody.required).toBe(false);
  expect(doc.paths["/v1/products"].post.requestBody.required).toBe(true);
  const limit = doc.paths["/v1/products"].get.parameters.find((p: { name: string }) => p.name === "limit");
  expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
  const create = doc.paths["/v1/products"].post.requestBody.content;
  expect(create["application/json"].schema.required).toEqual(["name", "image_url"]);
  expect(create["application/json"].schema.properties.image).toBeUndefined();
  expect(create["multipart/form-data"].schema.anyOf.map((v: { required: string[] }) => v.required)).toEqual([["name", "image_url"], ["name", "image"]]);
  expect(create["multipart/form-data"].schema.anyOf[1].properties.image.default).toBeUndefined();
  expect(doc.paths["/v1/products/{id}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Product" });
  expect(doc.components.schemas.Product.properties.dekupe.properties.retries_left).toEqual({ type: "integer" });
  expect(doc.components.schemas.Error.properties.required.type).toBe("integer");
  expect(doc.paths["/v1/videos/preview"].post.responses["402"]).toBeUndefined();
});

/** A page of `item` as the document's pageOf describes it, with the item inline (the document names it by $ref). */
const page = (item: TSchema) => Type.Object({ data: Type.Array(item), has_more: Type.Boolean() });

test("the documented schemas match the live answers of the routes the client flow does not visit", async () => {
  const acct = await t.newAccount({ credits: 7 });
  const admin = { token: ADMIN_TOKEN };
  const account = await t.json("GET", `/v1/admin/accounts/${acct.id}`, admin);
  expect(Value.Check(schemas.account, account.body)).toBe(true);
  const created = await t.json("POST", "/v1/admin/accounts", { ...admin, body: { name: "Shop" } });
  expect(Value.Check(schemas.accountCreated, created.body)).toBe(true);
  const grant = await t.json("POST", `/v1/admin/accounts/${acct.id}/credits`, { ...admin, body: { amount: 5 } });
  expect(Value.Check(schemas.transaction, grant.body)).toBe(true);
  const brand = await t.json("GET", "/v1/brand", { token: acct.token });
  expect(Value.Check(schemas.brand, brand.body)).toBe(true);
  const music = await t.json("GET", "/v1/music", { token: acct.token });
  expect(Value.Check(page(schemas.track), music.body)).toBe(true);
  const secret = await t.json("GET", "/v1/webhooks/secret", { token: acct.token });
  expect(Value.Check(schemas.webhookSecret, secret.body)).toBe(true);
  const rotated = await t.json("POST", "/v1/webhooks/secret/rotate", { token: acct.token });
  expect(Value.Check(schemas.rotatedSecret, rotated.body)).toBe(true);
  const endpoint = await t.json("GET", "/v1/webhooks/endpoint", { token: acct.token });
  expect(Value.Check(schemas.webhookEndpoint, endpoint.body)).toBe(true);
  const topUp = await t.json("POST", "/v1/balance/top-up", { token: acct.token, body: { amount: 1000, currency: "usd" } });
  expect(topUp.status).toBe(201);
  expect(Value.Check(schemas.topUp, topUp.body)).toBe(true);
  const jobs = await t.json("GET", "/v1/admin/jobs", admin);
  expect(jobs.body.data.length).toBeGreaterThan(0);
  expect(Value.Check(page(schemas.job), jobs.body)).toBe(true);
  // A schema that cannot fail proves nothing: a wrong shape is refused.
  expect(Value.Check(schemas.topUp, { ...topUp.body, credits: "10" })).toBe(false);
});
