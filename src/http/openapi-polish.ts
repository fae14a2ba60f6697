// The last touches on /openapi.json that a route's options cannot give, made once on the document Elysia's openapi
// plugin builds: the server's address, operation ids that are identifiers in every language, bodies that may be left
// out, query parameters documented as what clients send rather than as the strings the server checks, and the refusals
// every operation of a kind can give.
import { Elysia } from "elysia";
import { openapi, type ElysiaOpenAPIConfig } from "@elysiajs/openapi";
import { errors } from "../kernel";
import { errorResponse } from "./openapi-docs";
import { DOCUMENTED_AS, ONE_OF_FIELDS } from "./schema";


type Schema = Record<string, unknown>;
type Operation = {
  operationId?: string;
  responses?: Record<string, unknown>;
  security?: unknown[];
  parameters?: { in: string; name: string; schema?: Schema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
};
type Document = {
  servers?: { url: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; responses?: Record<string, unknown>; headers?: Record<string, unknown> };
};
type Answer = { description?: string; headers?: Record<string, object> };

/** `postV1BalanceTop-up` → `postV1BalanceTopUp`, `…Rotate_secret` → `…RotateSecret`: valid in every generator. */
export function identifier(operationId: string): string {
  return operationId.replace(/[-_\s]+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/[^a-zA-Z0-9]/g, "");
}

/**
 * A body that may be left out: no field required, none of a set of choices (ONE_OF_FIELDS) to make, and not "at least
 * one field" (minProperties). The routes take such a body's absence as `{}` (test/openapi-client.test.ts sends none).
 */
function mayBeLeftOut(schema: Schema | undefined): boolean {
  if (!schema || schema.type !== "object") return false;
  return !(schema.required as string[] | undefined)?.length && !(schema[ONE_OF_FIELDS] as string[] | undefined)?.length && !schema.minProperties;
}

/**
 * A body schema as one content type takes it: a JSON body has no file fields, and of the fields one of which must come
 * (ONE_OF_FIELDS) the one left is required, or, with several left, any one of them. A file field's `default: "File"`
 * (Elysia's) is no default at all.
 */
function bodyFor(contentType: string, schema: Schema): Schema {
  const properties = { ...(schema.properties as Record<string, Schema> | undefined) };
  const json = contentType === "application/json";
  for (const [name, prop] of Object.entries(properties)) {
    if (prop.format !== "binary") continue;
    if (json) delete properties[name];
    else properties[name] = Object.fromEntries(Object.entries(prop).filter(([k]) => k !== "default"));
  }
  const { [ONE_OF_FIELDS]: oneOf, ...rest } = schema;
  const out: Schema = { ...rest, properties };
  const choices = ((oneOf as string[] | undefined) ?? []).filter((name) => name in properties);
  const requiring = (name: string): Schema => ({ ...out, required: [...((rest.required as string[] | undefined) ?? []), name] });
  if (choices.length === 1) return requiring(choices[0]);
  // A whole object per choice: generators make a union of them (an anyOf of bare `required` lists types as unknown).
  if (choices.length > 1) return { description: rest.description, anyOf: choices.map(requiring) };
  return out;
}

/** Where a schema holds schemas: by name (properties), in a list (anyOf…), or as one (items…). */
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_ONES = ["items", "additionalProperties", "not", "contains", "if", "then", "else"];

/**
 * A schema as clients are to read it, at any depth: one marked DOCUMENTED_AS replaced by what it documents (keeping
 * its description), and without the `error` messages Elysia's options carry for its own refusals (a string is no
 * JSON Schema keyword there: linters such as redocly refuse the document for it). Only keywords go: a property named
 * `error` (the Error object's) stays, and examples are not schemas, so they are left as they are.
 */
export function asDocumented(schema: unknown): unknown {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return schema;
  const node = schema as Schema;
  const documented = node[DOCUMENTED_AS] as Schema | undefined;
  if (documented) return { ...documented, ...(node.description ? { description: node.description } : {}) };
  if (typeof node.error === "string") delete node.error;
  for (const key of SCHEMA_MAPS) {
    const map = node[key] as Record<string, unknown> | undefined;
    for (const name of Object.keys(map ?? {})) map![name] = asDocumented(map![name]);
  }
  for (const key of SCHEMA_LISTS) if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map(asDocumented);
  for (const key of SCHEMA_ONES) if (key in node) node[key] = asDocumented(node[key]);
  return node;
}

function polishOperation(op: Operation): void {
  if (op.operationId) op.operationId = identifier(op.operationId);
  for (const param of op.parameters ?? []) if (param.schema) param.schema = asDocumented(param.schema) as Schema;
  const body = op.requestBody;
  if (!body) return;
  for (const media of Object.values(body.content ?? {})) if (media.schema) media.schema = asDocumented(media.schema) as Schema;
  if (Object.values(body.content ?? {}).every((c) => mayBeLeftOut(c.schema))) body.required = false;
  for (const [type, media] of Object.entries(body.content ?? {})) if (media.schema) media.schema = bodyFor(type, media.schema);
}

const WRITES = new Set(["post", "put", "patch", "delete"]);

/**
 * A write that takes a token may also come from a Studio session cookie, which must carry its CSRF header: such a
 * write can be a 403 `csrf_failed` (route options do not know their method, so it is added here).
 */
function listCsrfRefusal(method: string, op: Operation): void {
  if (!WRITES.has(method) || !op.responses?.["401"] || op.responses["403"]) return;
  // Account routes keep the default security (an account token), whose answers carry the RateLimit-* headers.
  op.responses["403"] = errorResponse(403, op.security === undefined);
}

/**
 * Answers every operation of a kind can give, which route options do not say: a write's body that cannot be read (not
 * JSON, another content type) is a 400, and a POST that takes an Idempotency-Key is a 409 when the key comes with
 * another request or is still in use.
 */
function listSharedRefusals(method: string, op: Operation): void {
  if (!op.responses?.["422"]) return; // Elysia's own documentation routes
  const rated = op.security === undefined;
  if (WRITES.has(method) && !op.responses["400"]) op.responses["400"] = errorResponse(400, rated);
  const keyed = op.parameters?.some((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key");
  if (keyed && !op.responses["409"]) op.responses["409"] = errorResponse(409, rated);
}

/** The 413 examples with this instance's own limit (VITRIN_MAX_BODY_BYTES), not the catalogue sample's. */
function bodyLimitExample(op: Operation, maxBodyBytes: number): void {
  const examples = (op.responses?.["413"] as { content?: Record<string, { examples?: Record<string, { summary: string; value: unknown }> }> } | undefined)
    ?.content?.["application/json"]?.examples;
  if (!examples?.body_too_large) return;
  const e = errors.bodyTooLarge(maxBodyBytes);
  examples.body_too_large = { summary: e.message, value: e.toJSON() };
}

/** `Too Many Requests` → `TooManyRequests`; an answer for account tokens keeps the plain name, others say they lack the limit. */
function answerName(answer: Answer): string {
  const base = (answer.description ?? "Error").replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase());
  return answer.headers?.["RateLimit-Limit"] ? base : `${base}WithoutRateLimitHeaders`;
}

/** An answer's headers as references to `components.headers`, each header written there once (the first of its name). */
function shareHeaders(answer: Answer, shared: Record<string, unknown>): void {
  for (const [name, header] of Object.entries(answer.headers ?? {})) {
    if ("$ref" in header) continue;
    shared[name] ??= header;
    if (JSON.stringify(shared[name]) === JSON.stringify(header)) answer.headers![name] = { $ref: `#/components/headers/${name}` };
  }
}

/**
 * The error answers and rate-limit headers written once, under `components`, and referenced from every operation that
 * gives them: written out per operation they made nine tenths of the document (~0.4 MB), and a generated client got a
 * type per operation for what is one answer.
 */
function shareAnswers(doc: Document): void {
  const components = (doc.components ??= {});
  const responses = (components.responses ??= {});
  const headers = (components.headers ??= {});
  const nameOf = new Map<string, string>();
  for (const op of Object.values(doc.paths ?? {}).flatMap((ops) => Object.values(ops))) {
    for (const [status, answer] of Object.entries((op.responses ?? {}) as Record<string, Answer>)) {
      if ("$ref" in answer) continue;
      shareHeaders(answer, headers);
      if (Number(status) < 400) continue;
      const text = JSON.stringify(answer);
      let name = nameOf.get(text);
      if (name === undefined) {
        name = answerName(answer);
        // Two different answers under one title (an operation's own 404 text): the status and a number tell them apart.
        for (let n = 2; name in responses; n++) name = `${answerName(answer)}${n}`;
        responses[name] = answer;
        nameOf.set(text, name);
      }
      op.responses![status] = { $ref: `#/components/responses/${name}` };
    }
  }
}

/** Polishes the document in place, once (the plugin hands out the same object until a route is added). */
export function polishDocument(doc: Document, publicUrl: string, maxBodyBytes: number): Document {
  doc.servers = [{ url: publicUrl }];
  const schemas = doc.components?.schemas ?? {};
  for (const name of Object.keys(schemas)) schemas[name] = asDocumented(schemas[name]);
  for (const ops of Object.values(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      polishOperation(op);
      listCsrfRefusal(method, op);
      listSharedRefusals(method, op);
      bodyLimitExample(op, maxBodyBytes);
    }
  }
  shareAnswers(doc);
  return doc;
}

/**
 * Elysia's openapi plugin with the polish applied to a copy of its document: the plugin's operations share their
 * `responses` and parameters with the routes' own options, which other instances in the process (tests) build their
 * documents from too, so the polish (answers moved under `components`) must not write into them. The copy is made
 * once per document the plugin hands out (the same object until a route is added). The hook lives on this small
 * instance, so it runs for the two documentation routes only, never on the API's own requests.
 */
export function polishedOpenapi(config: ElysiaOpenAPIConfig<true, "/docs">, publicUrl: string, maxBodyBytes: number) {
  const polished = new WeakMap<object, Document>();
  return new Elysia({ name: "vitrin-openapi" })
    .onAfterHandle(({ responseValue }) => {
      if (!responseValue || typeof responseValue !== "object" || responseValue instanceof Response) return;
      let doc = polished.get(responseValue);
      if (!doc) {
        // A JSON copy: what clients get is JSON, and the plugin's objects hold nothing JSON would lose.
        doc = polishDocument(JSON.parse(JSON.stringify(responseValue)) as Document, publicUrl, maxBodyBytes);
        polished.set(responseValue, doc);
      }
      return doc;
    })
    .use(openapi(config));
}
