// What /openapi.json says beyond the routes' own schemas: each operation's answers (its success body and the
// catalogue errors it can give, with the rate-limit and Retry-After headers), who may
// call it, and the webhook events vitrin sends. Documentation only: nothing here validates a live answer.
import { STATUS_CODES } from "node:http";
import { Type } from "@sinclair/typebox";
import { t, type DocumentDecoration, type TSchema } from "elysia";
import { errors, type ApiError } from "../kernel";
import * as body from "./openapi-schemas";

const whole = (description: string) => Type.Integer({ description });

/** Every code the samples below answer with, in their order. */
function catalogueCodes(): string[] {
  return [...new Set(samples.map((e) => e.code))];
}

/** One real answer per catalogue code, made by the catalogue itself so the examples cannot drift from it. */
const samples: ApiError[] = [
  errors.badRequest("The body is not valid JSON."),
  errors.unauthorized(),
  errors.insufficientCredits(30, 10),
  errors.productLimit(5, 5),
  errors.forbidden("This template is for premium accounts."),
  errors.csrfFailed(),
  errors.notFound("product"),
  errors.adminDisabled(),
  errors.workerOnly(),
  errors.noPreviews("example"),
  errors.conflict("The video is still rendering; its files can be deleted once it has finished."),
  errors.fileTooLarge(),
  errors.bodyTooLarge(1048576),
  errors.unsupportedImage(),
  errors.validation([{ field: "name", message: "must be a string" }]),
  errors.unsupportedLanguage("language", "no template words in xx", ["en", "tr"]),
  errors.tooManyRequests(2),
  errors.internal("req_0123456789"),
  errors.unavailable(),
  errors.databaseBusy(),
  errors.insufficientStorage(),
];

/** The one error body every failure has; `code` is stable, `error` and `message` are for people. */
export const errorSchema = t.Object(
  {
    error: t.String({ description: "Short title of the status." }),
    code: t.String({ description: `Stable snake_case name of the catalogue entry, for programs: ${catalogueCodes().join(", ")}.` }),
    message: t.String({ description: "What went wrong and what to do." }),
    details: t.Optional(t.Array(t.Object({ field: t.String(), message: t.String() }), { description: "validation_failed, unsupported_language: a problem per field." })),
    required: t.Optional(whole("insufficient_credits: the credits the request needs.")),
    available: t.Optional(whole("insufficient_credits: the credits the balance holds.")),
    current_count: t.Optional(whole("product_limit_reached: the products the account holds.")),
    max_allowed: t.Optional(whole("product_limit_reached: the most it may hold.")),
    max_size: t.Optional(whole("file_too_large, body_too_large: the limit in bytes.")),
    allowed: t.Optional(t.Array(t.String(), { description: "unsupported_image_format: the image types taken." })),
    field: t.Optional(t.String({ description: "file_too_large, unsupported_image_format: the field of the image refused (image, image_url, logo)." })),
    supported_languages: t.Optional(t.Array(t.String(), { description: "unsupported_language: the languages that can be asked for." })),
    retry_after: t.Optional(whole("rate_limited, database_busy, insufficient_storage: seconds to wait (also the Retry-After header).")),
    request_id: t.Optional(t.String({ description: "internal_error: the request's id, for the operator's log." })),
    idempotency_key: t.Optional(t.String({ description: "conflict: the Idempotency-Key used with another request, or still in use." })),
    dekupe_status: t.Optional(t.String({ description: "conflict: a cut-out is running (processing)." })),
    retries_left: t.Optional(whole("conflict: cut-out retries left (0).")),
    video_status: t.Optional(t.String({ description: "conflict: the video's status, when its files cannot be deleted yet." })),
    attempt_id: t.Optional(t.String({ description: "conflict: the cut-out attempt that cannot be accepted." })),
    status: t.Optional(t.String({ description: "conflict: that attempt's status." })),
  },
  { additionalProperties: true, description: "An error. The fields after `details` come with the codes named in their descriptions." },
);

const intHeader = (description: string) => ({ description, schema: { type: "integer" as const } });
const rateHeaders = {
  "RateLimit-Limit": intHeader("Requests the bucket holds."),
  "RateLimit-Remaining": intHeader("Requests left now."),
  "RateLimit-Reset": intHeader("Seconds until the bucket is full again."),
  "RateLimit-Policy": { description: "The limit as `<burst>;w=<seconds>`.", schema: { type: "string" as const } },
};
const retryAfter = { "Retry-After": intHeader("Seconds to wait before trying again.") };

/** The response object for one error status: the shared schema and an example per code answered with it. */
export function errorResponse(status: number, rated: boolean) {
  const examples = Object.fromEntries(
    samples.filter((e) => e.status === status).map((e) => [e.code, { summary: e.message, value: e.toJSON() }]),
  );
  const headers = { ...(rated ? rateHeaders : {}), ...(samples.some((e) => e.status === status && e.headers["retry-after"]) ? retryAfter : {}) };
  // One title says it; several (403 is a product limit, a template's tier or a CSRF header) go by the status's name.
  const titles = [...new Set(samples.filter((e) => e.status === status).map((e) => e.error))];
  return {
    description: titles.length === 1 ? titles[0]! : (STATUS_CODES[status] ?? "Error"),
    headers,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" }, examples } },
  };
}

/** A PNG answer. */
export function png(description: string) {
  return { description, content: { "image/png": { schema: { type: "string", format: "binary" } } } };
}

type Answer = { status: number; schema: TSchema; description: string };

/** A JSON success answer of an operation. */
export function ok(status: number, schema: TSchema, description: string): Answer {
  return { status, schema: body.ref(schema), description };
}
export type OperationDoc = {
  tags: string[];
  summary: string;
  /** The success answer (JSON). */
  ok?: Answer;
  /** Error statuses beyond the ones every /v1 route can give (401, 422, 429, 500, 503; 413 and 422 on every route). */
  errors?: number[];
  /** "admin": the operator's token; "none": no token (the operations routes). Default: an account token. */
  auth?: "admin" | "none";
  /** Extra response objects, e.g. a PNG answer. */
  responses?: Record<number, unknown>;
};

/** The `detail` of a route: tags, summary, every answer with its headers, security and the Idempotency-Key header. */
export function operation(doc: OperationDoc): DocumentDecoration {
  const guarded = doc.auth !== "none";
  // Only account tokens have a rate-limit bucket, so only their answers carry RateLimit-* headers.
  const rated = doc.auth === undefined;
  // 422 everywhere: `expand`, or a NUL in the query, is refused on every route before it runs; 413 too: a body
  // announced over VITRIN_MAX_BODY_BYTES is refused before routing, whatever the route.
  const statuses = guarded ? [401, 413, 422, 429, 500, 503, ...(doc.errors ?? [])] : [413, 422, ...(doc.errors ?? [])];
  const responses: Record<string, unknown> = {};
  if (doc.ok) {
    responses[doc.ok.status] = {
      description: doc.ok.description,
      headers: rated ? rateHeaders : {},
      content: { "application/json": { schema: doc.ok.schema } },
    };
  }
  Object.assign(responses, doc.responses ?? {});
  for (const status of [...new Set(statuses)].sort()) responses[status] = errorResponse(status, rated);
  // The OpenAPI types want literal unions where these objects hold plain strings; the shapes are the spec's.
  return {
    tags: doc.tags,
    summary: doc.summary,
    responses: responses as DocumentDecoration["responses"],
    ...(doc.auth === "admin" ? { security: [{ adminBearer: [] }] } : doc.auth === "none" ? { security: [] } : {}),
  } as DocumentDecoration;
}

/**
 * The Idempotency-Key request header, as a route's `headers` schema so it shows among the operation's parameters.
 * Deliberately loose: any header value is a string, and the key's own rules are checked by the idempotency hook,
 * which answers a malformed key with the catalogue's 400.
 */
export const idempotencyHeaders = t.Object(
  {
    "idempotency-key": t.Optional(
      t.String({
        description:
          "1 to 255 visible ASCII characters. The same key with the same request replays the first answer (for 24 h); with a different request it is a 409.",
      }),
    ),
  },
  { additionalProperties: true },
);

/** A webhook event as sent: the envelope and its `data`. */
function event(name: string, description: string, data: TSchema) {
  const envelope = t.Object({
    id: t.String({ description: "The message id, also in the webhook-id header." }),
    type: t.Literal(name),
    event: t.Literal(name),
    timestamp: t.String({ format: "date-time" }),
    created_at: t.String({ format: "date-time" }),
    data: body.ref(data),
  });
  return {
    post: {
      // `webhookVideoCompleted`: generators and linters want every operation named, the events' too.
      operationId: `webhook${name.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join("")}`,
      summary: description,
      description:
        "Signed as Standard Webhooks: headers webhook-id, webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256 of " +
        "`<id>.<timestamp>.<body>` keyed with the secret: a webhook endpoint's own whsec_ secret for messages to that endpoint, " +
        "the account's (GET /v1/webhooks/secret) for the account URL and a video's webhook_url; during a rotation two signatures, " +
        "one per secret). Answer 2xx; 410 Gone stops every retry of the message; anything else (or no answer in time) is retried " +
        "with backoff, with the same webhook-id.",
      parameters: [
        { name: "webhook-id", in: "header" as const, required: true, description: "The message id: the same on every retry, for de-duplication.", schema: { type: "string" as const } },
        { name: "webhook-timestamp", in: "header" as const, required: true, description: "Unix seconds when this attempt was signed.", schema: { type: "integer" as const } },
        { name: "webhook-signature", in: "header" as const, required: true, description: "Space-separated `v1,<base64>` signatures.", schema: { type: "string" as const } },
      ],
      requestBody: { required: true, content: { "application/json": { schema: envelope } } },
      responses: { 200: { description: "Received (any 2xx)." } },
    },
  };
}

/**
 * Every event vitrin sends: to the webhook endpoints subscribed to it, video events also to the video's webhook_url,
 * the others also to the account-level URL; `ping` only to the URL POST /v1/webhooks/test names.
 */
export const webhookEvents = {
  "video.completed": event("video.completed", "A video finished rendering; data is the video with its URLs.", body.video),
  "video.failed": event("video.failed", "A video failed; data is the video with its error, the credits refunded.", body.video),
  "product.dekupe.completed": event(
    "product.dekupe.completed",
    "A background-removal attempt ended with a cut-out; data is the product as it now is.",
    body.product,
  ),
  "product.dekupe.failed": event(
    "product.dekupe.failed",
    "A background-removal attempt failed; data is the product (dekupe.error says why, dekupe.error_code for programs).",
    body.product,
  ),
  "balance.low": event(
    "balance.low",
    "A debit took the balance below the low-balance threshold.",
    t.Object({ object: t.Literal("balance"), credits: t.Number(), threshold: t.Number() }),
  ),
  "balance.topped_up": event(
    "balance.topped_up",
    "A top-up was paid and its credits booked.",
    t.Object({ object: t.Literal("top_up"), id: t.String(), amount: t.Number(), currency: t.String(), credits: t.Number(), balance: t.Number() }),
  ),
  ping: event("ping", "A test event (POST /v1/webhooks/test).", t.Object({ message: t.String() })),
};

/** The document's shared parts: security schemes and the error schema. */
export const sharedComponents = {
  securitySchemes: {
    bearer: { type: "http" as const, scheme: "bearer", description: "An account's API token." },
    adminBearer: { type: "http", scheme: "bearer", description: "The operator's VITRIN_ADMIN_TOKEN (/v1/admin only)." },
  } as const,
  schemas: { Error: errorSchema, ...body.namedSchemas() },
};
