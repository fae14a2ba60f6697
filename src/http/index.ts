// The HTTP face of vitrin: one Elysia app with request ids, JSON-only parsing, the error catalogue, auth,
// rate limits, idempotency, logs and metrics, plus the operational routes (/healthz, /readyz, /metrics, docs, files).
import { Elysia, ValidationError } from "elysia";
import type { Config } from "../config";
import type { Logger } from "../kernel";
import type { Clock } from "../kernel";
import { newId } from "../kernel";
import type { Plugins, ReadyReport } from "../plugins";
import { ApiError, errors, isApiError, MAX_IMAGE_BYTES, plainMessage, type FieldProblem } from "../kernel";
import { faultError, logFault } from "./faults";
import { readBodyBytes, readBodyText } from "./body";
import { FORM_MAX_BYTES, isFormUpload, parseForm } from "./form";
import { refuseNul } from "./text";
import { isJsonAnswer, jsonText, JSON_CONTENT_TYPE } from "./json-text";
import type { Metrics } from "./metrics";
import { apiDocs, operationRoutes } from "./operations";
import { polishedOpenapi } from "./openapi-polish";
import { withRequestScopes } from "./request-scope";

import type { RequestMeta, RequestMetas } from "./request-meta";

// The folder's face: what the composition root (src/service.ts) builds the HTTP side from.
export { requestMetas, type RequestMeta, type RequestMetas } from "./request-meta";
export { createMetrics, type Metrics } from "./metrics";
export { createRateLimiter } from "./ratelimit";
export { AuthGate } from "./auth-gate";
export { AuthThrottle } from "./auth-throttle";
export { trustedProxyList } from "./client-address";
export { isListenError, listenError, refuseListen } from "./port";
export { createIdempotency, type Idempotency } from "./idempotency";
export { idempotentWrites } from "./idempotency-writes";
export { recordIdempotentError } from "./idempotency-hooks";
export { IDEMPOTENCY_PURGE_JOB, registerIdempotencyPurge } from "./idempotency-purge";
export type { GuardDeps } from "./guard";
export { adminRoutes } from "./routes/accounts";
export { productRoutes } from "./routes/products";
export { jobJson, jobRoutes } from "./routes/jobs";
export { webhookRoutes } from "./routes/webhooks";
export { webhookEndpointRoutes } from "./routes/webhook-endpoints";
export { balanceRoutes, paymentRoutes } from "./routes/billing";
export { videoRoutes } from "./routes/videos";
export { brandRoutes } from "./routes/brand";
export { musicRoutes } from "./routes/music";
export { studioSessionRoutes } from "./routes/studio-session";
export { tokenRoutes } from "./routes/tokens";
export { loginLinkRoutes } from "./routes/login-links";
export { adminTokenRoutes } from "./routes/admin-tokens";

export type HttpContext = {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  plugins: Plugins;
  meta: RequestMetas;
  /** Extra readiness checks (database, job engine, …) keyed by name. */
  readiness: () => Promise<Record<string, ReadyReport>>;
  isShuttingDown: () => boolean;
  /** `transient`: the error's cause may pass (ApiError.transient), so the key is freed rather than bound to it. */
  onIdempotentOutcome: (meta: RequestMeta, status: number, body: string, transient: boolean) => Promise<void>;
  /** A page for a browser that navigated to an address nothing serves (the Studio's), or null for the JSON 404. */
  notFoundPage?: (request: Request) => Promise<Response | null>;
};

const requestIdPattern = /^[A-Za-z0-9._:-]{1,100}$/;

// Request ids need to be unique, not secret: a random per-process prefix and a counter are enough and cheap.
const requestIdPrefix = newId("req");
let requestCounter = 0;
function nextRequestId(): string {
  return `${requestIdPrefix}${(++requestCounter).toString(36)}`;
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

export function errorResponse(err: ApiError, requestId: string): Response {
  return new Response(JSON.stringify(err.toJSON()), {
    status: err.status,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId, ...err.headers },
  });
}

/** TypeBox's "Expected required property" in plain words. */
const REQUIRED = plainMessage("Expected required property", undefined, "");

function validationProblems(error: ValidationError): FieldProblem[] {
  // A problem with the whole body (or query) rather than one field of it, such as an empty PATCH, is named after it.
  const whole = typeof (error as { type?: unknown }).type === "string" ? (error as { type: string }).type : "body";
  const problems = error.all.map((e) => {
    const path = "path" in e && typeof e.path === "string" ? e.path : "";
    const field = path.replace(/^\//, "").replaceAll("/", ".") || whole;
    const raw = "message" in e && typeof e.message === "string" ? e.message : "is invalid";
    // A query's unknown names are parameters, not fields (`?lang=fr`).
    if (whole === "query" && raw === "Unexpected property") return { field, message: "is not a known query parameter" };
    return { field, message: plainMessage(raw, "schema" in e ? e.schema : undefined, field) };
  });
  // A missing field is said once: TypeBox adds "Expected string" (and the like) for the value that is not there.
  const missing = new Set(problems.filter((p) => p.message === REQUIRED).map((p) => p.field));
  // "" breaks both minLength and a not-blank pattern: "must not be blank" says it all.
  const blank = new Set(problems.filter((p) => p.message === "must not be blank").map((p) => p.field));
  // TypeBox reports one schema violation several ways; keep one line per field and message.
  const seen = new Set<string>();
  return problems.filter((p) => {
    if (missing.has(p.field) && p.message !== REQUIRED) return false;
    if (blank.has(p.field) && p.message === "must not be empty") return false;
    const k = `${p.field}\u0000${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Turns anything thrown in a request into the contract's error shape; unknown errors are logged and become 500s. */
export function toApiError(code: string | number, error: unknown, requestId: string, logger: Logger): ApiError {
  if (isApiError(error)) return error;
  // Elysia wraps what our body parser throws (413, 400) in its own ParseError.
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (isApiError(cause)) return cause;
  if (error instanceof ValidationError) {
    const details = validationProblems(error);
    return errors.validation(details.length > 0 ? details : [{ field: "", message: "the request does not match the schema" }]);
  }
  if (code === "PARSE") return errors.badRequest("The request body is not valid JSON.");
  if (code === "NOT_FOUND") return errors.notFound("route");
  // A locked database or a full disk is no bug: 503 or 507 with Retry-After, logged at most every few seconds.
  const fault = faultError(error);
  if (fault) {
    logFault(logger, fault, requestId, error);
    return fault;
  }
  logger.error("unhandled error", { request_id: requestId, err: error });
  return errors.internal(requestId);
}

/**
 * onRequest: gives the request its id (the caller's, when well-formed) and turns it away while shutting down or when
 * its announced body is over the cap. Elysia awaits a hook whose text has `return call(` or `=> call(`, and awaiting
 * costs every request a tick, so this one is written without.
 */
function startRequest(ctx: HttpContext, record: Recorder) {
  const { meta } = ctx;
  const maxBody = ctx.config.maxBodyBytes;
  const refuse = (m: RequestMeta, request: Request, err: ApiError): Response => {
    m.status = err.status;
    record(m, request, undefined, undefined, err.status);
    return errorResponse(err, m.id);
  };
  return ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) => {
    const incoming = request.headers.get("x-request-id");
    const id = incoming && requestIdPattern.test(incoming) ? incoming : nextRequestId();
    // Every field from the start, so no hook changes the object's shape later on.
    const m: RequestMeta = { id, startedAt: performance.now(), idempotency: undefined, status: undefined, recorded: false };
    meta.set(request, m);
    set.headers["x-request-id"] = id;
    let refusal: ApiError | null = null;
    if (ctx.isShuttingDown() && !pathOf(request.url).startsWith("/healthz")) {
      refusal = errors.unavailable("The service is shutting down.");
    } else {
      // A body announced over the cap is refused here, on every route, in the catalogue's shape (Bun's own limit is
      // only a backstop far above it, because Bun answers a bare 413 without body or request id).
      const length = request.headers.get("content-length");
      if (length !== null && Number(length) > maxBody) refusal = tooLarge(request.headers.get("content-type") ?? undefined, pathOf(request.url), maxBody);
    }
    // Elysia runs no later hook for an answer given here, so refuse() counts and logs it (before routing: unmatched).
    return refusal === null ? undefined : refuse(m, request, refusal);
  };
}

/**
 * An upload past the cap: a product form is almost all image, so it is refused as the image it carries
 * (`file_too_large` with the image limit, as a too-large image_url is); any other body as `body_too_large`.
 */
function tooLarge(contentType: string | undefined, path: string, cap: number): ApiError {
  if (!isFormUpload(contentType, path)) return errors.bodyTooLarge(cap);
  // An operator's VITRIN_MAX_BODY_BYTES below the image limit is the real limit then.
  const limit = Math.min(cap, MAX_IMAGE_BYTES);
  return errors.fileTooLarge(limit, `The upload is larger than ${cap} bytes; an image can be at most ${limit} bytes.`, "image");
}

/** onParse: bodies are JSON (product uploads may be forms), read within the byte cap; payment webhooks get their raw text. */
function parseBody(maxBody: number) {
  return async ({ request, contentType }: { request: Request; contentType: string }) => {
    const path = pathOf(request.url);
    // Browsers upload a product's image as a form: the same cap, counted while the bytes arrive.
    if (isFormUpload(contentType, path)) {
      const cap = Math.min(maxBody, FORM_MAX_BYTES);
      let bytes: Uint8Array;
      try {
        bytes = await readBodyBytes(request, { maxBytes: cap, json: false });
      } catch (e) {
        throw isApiError(e) && e.code === "body_too_large" ? tooLarge(contentType, path, cap) : e;
      }
      // The header itself: Elysia's contentType may leave out the boundary the parts are split on.
      return parseForm(bytes, request.headers.get("content-type") ?? contentType);
    }
    // Payment providers sign the exact bytes they send: their webhook route gets the raw text, unscanned.
    const raw = path.startsWith("/v1/payments/");
    const text = await readBodyText(request, { maxBytes: maxBody, json: !raw });
    if (raw) return text;
    if (text.trim() === "") return {};
    const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "application/json" && !type.endsWith("+json")) {
      throw errors.badRequest("Send the body as JSON with `Content-Type: application/json`.");
    }
    try {
      return JSON.parse(text);
    } catch {
      throw errors.badRequest("The request body is not valid JSON.");
    }
  };
}

/**
 * No vitrin object has expandable fields: `expand` (as Stripe clients send it) is a 422 naming it on every route, never
 * silently ignored, so a client does not wait for an object that will not come.
 */
function refuseExpand(query: Record<string, unknown>) {
  for (const key in query) {
    if (key === "expand" || key.startsWith("expand[")) {
      throw errors.invalidField(key, "is not supported: no vitrin object has expandable fields; fetch related objects by their id");
    }
  }
}

/** What the transform hook reads; Elysia's context has `url` (the request's, read once) but its types leave it out. */
type Transformed = { params: unknown; query: Record<string, unknown>; body: unknown; path: string };

/**
 * onTransform, before validation so every route is covered: NUL characters and `expand` are refused. Path parameters
 * and the query come from the URL, where U+0000 can only arrive as %00, so a URL without it needs no walk through
 * them (~0.1 µs a request, measured). The payment webhook's raw, signed text is the provider's business.
 */
function refuseBadInput({ params, query, body, path, url }: Transformed & { url: string }) {
  const encodedNul = url.includes("%00");
  if (!path.startsWith("/v1/payments/")) refuseNul({ params: encodedNul ? params : undefined, query: encodedNul ? query : undefined, body });
  refuseExpand(query);
}

/** onError: anything thrown becomes the catalogue's shape; an idempotent request's outcome is stored or freed. */
function answerError(ctx: HttpContext, record: Recorder) {
  const { meta, logger } = ctx;
  type Failed = { code: string | number; error: unknown; request: Request; route?: string; path?: string };
  return async ({ code, error, request, route, path }: Failed) => {
    const m = meta.get(request);
    const id = m?.id ?? newId("req");
    // With the admin API off, any /v1/admin path (a known route or not) says so and how to turn it on.
    const adminOff = code === "NOT_FOUND" && !ctx.config.adminToken && pathOf(request.url).startsWith("/v1/admin/");
    const page = code === "NOT_FOUND" && !adminOff && ctx.notFoundPage ? await ctx.notFoundPage(request) : null;
    if (page) {
      if (m) record((m.status = 404, m), request, route, path, 404);
      page.headers.set("x-request-id", id);
      return page;
    }
    const err = adminOff ? errors.adminDisabled() : toApiError(code, error, id, logger);
    if (m) {
      m.status = err.status;
      if (m.idempotency) await ctx.onIdempotentOutcome(m, err.status, JSON.stringify(err.toJSON()), err.transient);
      // An unmatched path's error is answered outside any route, where no mapResponse runs: it is recorded here.
      record(m, request, route, path, err.status);
    }
    return errorResponse(err, id);
  };
}

/**
 * A string as JSON: a method or path of plain printable ASCII (nearly all) is only quoted; anything else goes through
 * JSON.stringify. Two JSON.stringify calls a request cost ~0.1 µs (measured).
 */
function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(text);
  }
  return `"${text}"`;
}

type Recorder = (m: RequestMeta | undefined, request: Request, route: string | undefined, path: string | undefined, status: number) => void;

/**
 * Counts a request in /metrics and logs its line, once: when its answer is mapped (mapResponse) or its error answered
 * (onError; a route's error passes through both). Elysia's onAfterResponse would do it a tick later, through a
 * setImmediate per request holding the whole context until then (~0.2 µs a request more, measured), and never for an
 * answer onRequest gives. The latency logged ends when the answer is handed to Elysia to send.
 */
function requestRecorder(ctx: HttpContext): Recorder {
  const { metrics, logger } = ctx;
  // Route labels are the app's own patterns (or "unmatched"), a small fixed set: each is written as JSON once.
  const routeJson = new Map<string, string>();
  return (m, request, route, path, status) => {
    if (!m || m.recorded) return;
    m.recorded = true;
    const seconds = (performance.now() - m.startedAt) / 1000;
    const routeLabel = route || "unmatched";
    metrics.observeRequest(request.method, routeLabel, status, seconds);
    if (!logger.enabled("info")) return;
    // Elysia's path is the URL's, already cut out (request.url makes a new string on every read).
    const at = path ?? pathOf(request.url);
    const ms = Math.round(seconds * 100000) / 100;
    if (!logger.infoJson) {
      logger.info("request", { request_id: m.id, method: request.method, route: routeLabel, path: at, status, ms });
      return;
    }
    let routeText = routeJson.get(routeLabel);
    if (routeText === undefined) routeJson.set(routeLabel, (routeText = JSON.stringify(routeLabel)));
    // The id needs no escaping: it matched requestIdPattern or is our own.
    const members = `"request_id":"${m.id}","method":${jsonString(request.method)},"route":${routeText},"path":${jsonString(at)}`;
    logger.infoJson("request", `${members},"status":${status},"ms":${ms}`);
  };
}

/** The status a route's answer goes out with: an error's, a Response's own, or the one the handler set. */
function answerStatus(m: RequestMeta | undefined, responseValue: unknown, set: { status?: number | string }): number {
  if (m?.status !== undefined) return m.status;
  if (responseValue instanceof Response) return responseValue.status;
  return typeof set.status === "number" ? set.status : 200;
}

export function createHttpApp(ctx: HttpContext) {
  const record = requestRecorder(ctx);
  type Mapped = { request: Request; route: string; path: string; responseValue: unknown; set: { headers: Record<string, string | number>; status?: number | string } };
  // Each POST runs in a scope of its own, where the Idempotency-Key it holds is found by the transactions it runs.
  return withRequestScopes(new Elysia({ name: "vitrin-http", normalize: false }))
    .onRequest(startRequest(ctx, record))
    .onParse({ as: "global" }, parseBody(ctx.config.maxBodyBytes))
    .onTransform({ as: "global" }, refuseBadInput as (c: Transformed) => void)
    .onError({ as: "global" }, answerError(ctx, record))
    // Plain objects and arrays are written as JSON here instead of by Elysia's Response.json, so an answer the read
    // cache shares between requests is written once (json-text.ts); the text then goes out as Elysia sends strings.
    .mapResponse({ as: "global" }, ({ request, route, path, responseValue, set }: Mapped) => {
      const m = ctx.meta.get(request);
      record(m, request, route, path, answerStatus(m, responseValue, set));
      if (!isJsonAnswer(responseValue)) return;
      set.headers["content-type"] ??= JSON_CONTENT_TYPE;
      // Elysia sends what mapResponse gives as it sends a handler's value, so the text goes out as any string does
      // (its types ask for a Response, which Elysia would copy once more, body and all, to add the headers in `set`).
      return jsonText(responseValue) as unknown as Response;
    })
    .use(polishedOpenapi(apiDocs, ctx.config.publicUrl, ctx.config.maxBodyBytes))
    .use(operationRoutes(ctx));
}
