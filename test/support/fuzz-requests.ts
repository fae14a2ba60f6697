// The fuzz suite's route catalogue and request arbitraries: every JSON route with a valid-shaped body of its own,
// ids that are the caller's, another account's, valid-looking or garbage, hostile query strings and headers.
import fc from "fast-check";
import { brokenJsonText, mutated, nastyNumber, nastyString, nastyValue, toJsonText } from "./fuzz-values";

export type IdKind = "product" | "video" | "top_up" | "message" | "transaction" | "template" | "account" | "token" | "job" | "provider";
type QueryKind = "page" | "products" | "videos" | "transactions" | "deliveries" | "jobs" | "preview";

/** Ids the fuzz draws from: the caller's own, another account's (IDOR), and what the bodies need. */
export type FuzzPools = {
  own: Partial<Record<IdKind, string[]>>;
  foreign: Partial<Record<IdKind, string[]>>;
  templates: string[];
  promptKeys: string[];
  imageDataUrl: string;
  hookUrl: string;
  /** Writes that went through, oldest first: what a failure report shows of the state it met. */
  writes: string[];
};

export type RouteSpec = {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  id?: IdKind;
  query?: QueryKind;
  body?: (p: FuzzPools) => fc.Arbitrary<Record<string, unknown>>;
};

/** One request as the fuzz sends it; printed as is when a property fails. */
export type FuzzRequest = { method: string; path: string; headers: Record<string, string>; body?: string };

const prefixes: Record<IdKind, string> = {
  product: "prod_",
  video: "vid_",
  top_up: "top_",
  message: "msg_",
  transaction: "txn_",
  template: "",
  account: "acct_",
  token: "tok_",
  job: "job_",
  provider: "",
};

const alnum = fc.constantFrom(..."0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const productName = fc.oneof(fc.constantFrom("Stoneware Mug", "Çay bardağı", "ساعة"), fc.string({ minLength: 1, maxLength: 30 }));
/** Mostly what the field wants, now and then a hostile value: valid-shaped bodies must often get through. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown> = nastyString) => fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: bad, weight: 1 });
/** Money and credit amounts: hostile half the time, where the bugs of issue 18 were. */
const amount = (good: fc.Arbitrary<number>) => fc.oneof(good, nastyNumber);
const urlish = (p: FuzzPools) => mostly(fc.constant(p.hookUrl));
/** A plausible value for any template's prompt field (text, a price, a list of short lines). */
const promptValue = fc.oneof(
  fc.string({ minLength: 1, maxLength: 20 }),
  fc.integer({ min: 0, max: 5000 }),
  fc.constantFrom("usd", "TRY", "eur"),
  fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 3 }),
);

function body<T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) {
  // Optional fields come and go; undefined keys are left out of the JSON text.
  return fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

const videoBody = (p: FuzzPools) =>
  fc.record(
    {
      template_id: mostly(fc.constantFrom(...p.templates)),
      product_id: idArbitrary("product", p),
      user_prompt: fc.dictionary(fc.constantFrom(...p.promptKeys), mostly(promptValue, nastyValue), { maxKeys: 3 }),
      language: mostly(fc.constantFrom("en", "tr", "de", "ja", "ar", "pt-BR", "zz", "xx-YY")),
      webhook_url: urlish(p),
    },
    { requiredKeys: ["template_id", "product_id"] },
  ) as fc.Arbitrary<Record<string, unknown>>;

/** The routes an account token reaches. */
export const accountRoutes: RouteSpec[] = [
  { method: "GET", path: "/v1/products", query: "products" },
  {
    method: "POST",
    path: "/v1/products",
    body: (p) =>
      fc.record(
        { name: productName, description: fc.string({ maxLength: 60 }), image_url: mostly(fc.constant(p.imageDataUrl)), dekupe: fc.boolean() },
        { requiredKeys: ["name", "image_url"] },
      ),
  },
  { method: "GET", path: "/v1/products/:id", id: "product" },
  {
    method: "PATCH",
    path: "/v1/products/:id",
    id: "product",
    body: (p) => body({ name: productName, description: fc.oneof(fc.string({ maxLength: 60 }), fc.constant(null)), image_url: fc.constant(p.imageDataUrl) }),
  },
  { method: "DELETE", path: "/v1/products/:id", id: "product" },
  { method: "GET", path: "/v1/products/:id/dekupe", id: "product" },
  { method: "POST", path: "/v1/products/:id/dekupe/retry", id: "product" },
  { method: "POST", path: "/v1/products/:id/dekupe/revert", id: "product" },
  { method: "GET", path: "/v1/webhooks/secret" },
  { method: "POST", path: "/v1/webhooks/secret/rotate" },
  { method: "GET", path: "/v1/webhooks/endpoint" },
  { method: "PUT", path: "/v1/webhooks/endpoint", body: (p) => fc.record({ url: fc.oneof(urlish(p), fc.constant(null)) }) },
  { method: "GET", path: "/v1/webhooks/deliveries", query: "deliveries" },
  { method: "GET", path: "/v1/webhooks/deliveries/:id", id: "message" },
  { method: "POST", path: "/v1/webhooks/deliveries/:id/redeliver", id: "message" },
  { method: "POST", path: "/v1/webhooks/test", body: (p) => fc.record({ url: urlish(p) }) },
  { method: "GET", path: "/v1/balance" },
  { method: "GET", path: "/v1/balance/", query: "page" },
  {
    method: "POST",
    path: "/v1/balance/top-up",
    body: () => fc.record({ amount: amount(fc.integer({ min: 1000, max: 100_000 })), currency: mostly(fc.constantFrom("usd", "eur", "try")) }),
  },
  { method: "GET", path: "/v1/balance/top-ups/:id", id: "top_up" },
  { method: "GET", path: "/v1/balance/transactions", query: "transactions" },
  { method: "POST", path: "/v1/videos", body: videoBody },
  { method: "POST", path: "/v1/videos/estimate", body: videoBody },
  { method: "GET", path: "/v1/videos", query: "videos" },
  { method: "GET", path: "/v1/videos/:id", id: "video" },
  { method: "GET", path: "/v1/templates" },
  { method: "GET", path: "/v1/templates/:id", id: "template" },
  { method: "GET", path: "/v1/templates/:id/preview", id: "template", query: "preview" },
];

/** The operator's routes behind VITRIN_ADMIN_TOKEN. */
export const adminRoutes: RouteSpec[] = [
  {
    method: "POST",
    path: "/v1/admin/accounts",
    body: () => body({ name: fc.string({ maxLength: 30 }), credits: amount(fc.integer({ min: 0, max: 50 })), language: fc.constantFrom("en", "tr", "pt-BR", "zz"), is_premium: fc.boolean() }),
  },
  { method: "GET", path: "/v1/admin/accounts" },
  { method: "GET", path: "/v1/admin/accounts/:id", id: "account" },
  {
    method: "PATCH",
    path: "/v1/admin/accounts/:id",
    id: "account",
    body: (p) => body({ name: fc.string({ maxLength: 30 }), language: fc.constantFrom("en", "tr", "de", "xx"), is_premium: fc.boolean(), webhook_url: fc.oneof(urlish(p), fc.constant(null)) }),
  },
  { method: "POST", path: "/v1/admin/accounts/:id/tokens", id: "account", body: () => body({ name: fc.string({ maxLength: 30 }) }) },
  { method: "DELETE", path: "/v1/admin/tokens/:id", id: "token" },
  {
    method: "POST",
    path: "/v1/admin/accounts/:id/credits",
    id: "account",
    body: () => fc.record({ amount: amount(fc.integer({ min: -60, max: 60 })), description: fc.string({ maxLength: 40 }) }, { requiredKeys: ["amount"] }),
  },
  { method: "POST", path: "/v1/admin/top-ups/:id/complete", id: "top_up" },
  { method: "GET", path: "/v1/admin/jobs", query: "jobs" },
  { method: "GET", path: "/v1/admin/jobs/", query: "jobs" },
  { method: "GET", path: "/v1/admin/jobs/:id", id: "job" },
  { method: "POST", path: "/v1/admin/jobs/:id/redrive", id: "job" },
];

/** Routes anyone may call: health, readiness, and the payment providers' webhook (signed, raw body). */
export const openRoutes: RouteSpec[] = [
  { method: "GET", path: "/healthz" },
  { method: "GET", path: "/readyz" },
  { method: "POST", path: "/v1/payments/:id/webhook", id: "provider", body: () => fc.dictionary(nastyString, nastyValue, { maxKeys: 3 }) },
];

/** Where a created thing's id is in a success answer, by the route that creates it. */
const creates: [RegExp, IdKind, string][] = [
  [/^POST \/v1\/products$/, "product", "id"],
  [/^POST \/v1\/videos$/, "video", "id"],
  [/^POST \/v1\/balance\/top-up$/, "top_up", "id"],
  [/^POST \/v1\/admin\/accounts$/, "account", "account.id"],
  [/^POST \/v1\/admin\/accounts$/, "token", "token_id"],
  [/^POST \/v1\/admin\/accounts\/[^/]+\/tokens$/, "token", "id"],
];

/** Adds what a successful request created to the caller's own ids, so later requests can aim at it. */
export function learn(p: FuzzPools, r: FuzzRequest, status: number, text: string) {
  if (status < 200 || status >= 300) return;
  const route = `${r.method} ${r.path.split("?")[0]}`;
  for (const [pattern, kind, field] of creates) {
    if (!pattern.test(route)) continue;
    let value: unknown = JSON.parse(text);
    for (const key of field.split(".")) value = (value as Record<string, unknown> | null)?.[key];
    const ids = (p.own[kind] ??= []);
    if (typeof value === "string" && !ids.includes(value)) ids.push(value);
  }
}

/** Path segments no id looks like: malformed escapes, traversal, slashes, overlong. */
const rawGarbage = fc.constantFrom("%", "%zz", "%E0%A4%A", "%00", "..", "a/b", "%2F", "%2e%2e", "x".repeat(150), "%F0%9F%92%A5", "null", "0", "-1");

export function idArbitrary(kind: IdKind, p: FuzzPools): fc.Arbitrary<string> {
  const choices: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.string({ unit: alnum, minLength: 20, maxLength: 20 }).map((s) => prefixes[kind] + s), weight: 1 },
    { arbitrary: nastyString.filter((s) => s.length > 0), weight: 1 },
  ];
  const own = p.own[kind] ?? [];
  const foreign = p.foreign[kind] ?? [];
  // Read when drawn, not when built: ids the run creates (learn() adds them) are aimed at too.
  if (own.length) choices.push({ arbitrary: fc.nat().map((i) => own[i % own.length]), weight: 4 });
  if (foreign.length) choices.push({ arbitrary: fc.nat().map((i) => foreign[i % foreign.length]), weight: 3 });
  return fc.oneof(...choices);
}

function pathSegment(kind: IdKind, p: FuzzPools): fc.Arbitrary<string> {
  return fc.oneof({ arbitrary: idArbitrary(kind, p).map((s) => encodeURIComponent(s.toWellFormed())), weight: 6 }, { arbitrary: rawGarbage, weight: 1 });
}

const limitValue = mostly(fc.integer({ min: 1, max: 100 }).map(String), fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), nastyString, fc.constantFrom("1e3", "0x10", "20.5", " 5", "", "101")));

function queryPairs(kind: QueryKind | undefined, p: FuzzPools): fc.Arbitrary<[string, string][]> {
  const pageIds: Record<string, IdKind> = { products: "product", videos: "video", deliveries: "message", transactions: "transaction", page: "transaction" };
  const extra = fc.array(fc.tuple(fc.oneof(nastyString, fc.constantFrom("expand", "language", "access_token", "limit")), nastyString), { maxLength: 2 });
  let own: fc.Arbitrary<[string, string][]> = fc.constant([]);
  if (kind && kind in pageIds) {
    const id = idArbitrary(pageIds[kind], p);
    const cursor = fc.oneof(
      { arbitrary: fc.constant({}), weight: 2 },
      { arbitrary: fc.record({ starting_after: id }), weight: 2 },
      { arbitrary: fc.record({ ending_before: id }), weight: 2 },
      { arbitrary: fc.record({ starting_after: id, ending_before: id }), weight: 1 },
    );
    const video = kind === "deliveries" ? idArbitrary("video", p) : fc.constant(undefined);
    own = fc.tuple(body({ limit: limitValue, video_id: video }), cursor).map(([x, c]) => pairs({ ...x, ...c }));
  } else if (kind === "jobs") {
    own = body({ status: mostly(fc.constantFrom("queued", "running", "done", "dead", "failed")), kind: mostly(fc.constantFrom("render", "dekupe")), limit: limitValue }).map(pairs);
  } else if (kind === "preview") {
    own = body({ language: mostly(fc.constantFrom("en", "tr", "ar", "ja", "zz", "EN", "pt-BR")) }).map(pairs);
  }
  return fc.tuple(own, fc.oneof({ arbitrary: fc.constant([] as [string, string][]), weight: 6 }, { arbitrary: extra, weight: 1 })).map(([a, b]) => [...a, ...b]);
}

function pairs(o: Record<string, unknown>): [string, string][] {
  return Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]);
}

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
const idempotencyKey = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 10 },
  { arbitrary: fc.constantFrom("key-1", "key-2", "key-3"), weight: 2 },
  { arbitrary: fc.string({ unit: printable, maxLength: 300 }), weight: 1 },
  { arbitrary: fc.constantFrom("", " ", "é", "a\tb"), weight: 1 },
);
const contentType = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 8 },
  {
    arbitrary: fc.constantFrom(
      undefined,
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/merge-patch+json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "multipart/form-data; boundary=zzz",
      "application/octet-stream",
      "application/json; charset=latin1",
    ),
    weight: 3,
  },
);

/** The body text of a request to `spec`: valid-shaped, mutated, any hostile value, broken JSON, or none. */
function bodyText(spec: RouteSpec, p: FuzzPools): fc.Arbitrary<string | undefined> {
  if (spec.method === "GET") return fc.constant(undefined);
  const hostile = fc.oneof({ arbitrary: nastyValue.map(toJsonText), weight: 2 }, { arbitrary: brokenJsonText, weight: 1 });
  if (!spec.body) return fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: hostile, weight: 1 });
  const valid = spec.body(p);
  return fc.oneof(
    { arbitrary: valid.map(toJsonText), weight: 3 },
    { arbitrary: mutated(valid).map(toJsonText), weight: 4 },
    { arbitrary: hostile, weight: 2 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

/** Requests to `routes`, authenticated with `authorization` (a header value, or none). */
export function requestArbitrary(routes: RouteSpec[], p: FuzzPools, authorization: fc.Arbitrary<string | undefined>): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...routes).chain((spec) =>
    fc
      .record({
        id: spec.id ? pathSegment(spec.id, p) : fc.constant(""),
        query: queryPairs(spec.query, p),
        malformedQuery: fc.oneof({ arbitrary: fc.constant(""), weight: 8 }, { arbitrary: fc.constantFrom("&%zz=1", "&limit=%E0", "&=", "&&", "&limit"), weight: 1 }),
        body: bodyText(spec, p),
        contentType,
        idempotencyKey,
        authorization,
      })
      .map((r) => {
        const search = new URLSearchParams(r.query).toString() + r.malformedQuery;
        const path = spec.path.replace(":id", r.id) + (search ? `?${search}` : "");
        const headers: Record<string, string> = {};
        if (r.authorization !== undefined) headers.authorization = r.authorization;
        if (r.idempotencyKey !== undefined) headers["idempotency-key"] = r.idempotencyKey;
        if (r.body !== undefined && r.contentType !== undefined) headers["content-type"] = r.contentType;
        return { method: spec.method, path, headers, body: r.body };
      }),
  );
}
