// The HTTP face of vitrin: one Elysia app with request ids, JSON-only parsing, the error catalogue, auth,
// rate limits, idempotency, logs and metrics, plus the operational routes (/healthz, /readyz, /metrics, docs, files).
import { Elysia, ValidationError } from "elysia";
import { openapi } from "@elysiajs/openapi";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import type { Config } from "../config";
import type { Logger } from "../kernel";
import type { Clock } from "../kernel";
import { newId } from "../kernel";
import type { Plugins, ReadyReport } from "../plugins";
import { ApiError, errors, isApiError, type FieldProblem } from "../kernel";
import { faultError, logFault } from "./faults";
import { readBodyText } from "./body";
import { refuseNul } from "./text";
import type { Metrics } from "./metrics";

export type RequestMeta = {
  id: string;
  startedAt: number;
  /** Set when this request reserved an Idempotency-Key, so its outcome can be stored. */
  idempotency?: { accountId: string; key: string };
  status?: number;
};

export type HttpContext = {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  plugins: Plugins;
  meta: WeakMap<Request, RequestMeta>;
  /** Extra readiness checks (database, job engine, …) keyed by name. */
  readiness: () => Promise<Record<string, ReadyReport>>;
  isShuttingDown: () => boolean;
  onIdempotentOutcome: (meta: RequestMeta, status: number, body: string) => Promise<void>;
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

function validationProblems(error: ValidationError): FieldProblem[] {
  const problems = error.all.map((e) => {
    const path = "path" in e && typeof e.path === "string" ? e.path : "";
    const field = path.replace(/^\//, "").replaceAll("/", ".");
    let message = "message" in e && typeof e.message === "string" ? e.message : "is invalid";
    if (message === "Unexpected property") message = "is not a known field";
    return { field, message };
  });
  // TypeBox reports one schema violation several ways; keep one line per field and message.
  const seen = new Set<string>();
  return problems.filter((p) => {
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

export function createHttpApp(ctx: HttpContext) {
  const { config, logger, metrics, meta } = ctx;
  const maxBody = config.maxBodyBytes;

  return new Elysia({ name: "vitrin-http", normalize: false })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && requestIdPattern.test(incoming) ? incoming : nextRequestId();
      meta.set(request, { id, startedAt: performance.now() });
      set.headers["x-request-id"] = id;
      if (ctx.isShuttingDown() && !pathOf(request.url).startsWith("/healthz")) {
        const err = errors.unavailable("The service is shutting down.");
        meta.get(request)!.status = err.status;
        return errorResponse(err, id);
      }
    })
    .onParse({ as: "global" }, async ({ request, contentType }) => {
      // Payment providers sign the exact bytes they send: their webhook route gets the raw text, unscanned.
      const raw = pathOf(request.url).startsWith("/v1/payments/");
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
    })
    // Before validation, so every route is covered; the payment webhook's raw, signed text is the provider's business.
    .onTransform({ as: "global" }, ({ params, query, body, request }) => {
      if (!pathOf(request.url).startsWith("/v1/payments/")) refuseNul({ params, query, body });
    })
    .onError({ as: "global" }, async ({ code, error, request }) => {
      const m = meta.get(request);
      const id = m?.id ?? newId("req");
      const err = toApiError(code, error, id, logger);
      if (m) {
        m.status = err.status;
        if (m.idempotency) await ctx.onIdempotentOutcome(m, err.status, JSON.stringify(err.toJSON()));
      }
      return errorResponse(err, id);
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      const m = meta.get(request);
      if (!m) return;
      const status =
        m.status ?? (responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200);
      const seconds = (performance.now() - m.startedAt) / 1000;
      const routeLabel = route || "unmatched";
      metrics.observeRequest(request.method, routeLabel, status, seconds);
      if (logger.enabled("info")) {
        logger.info("request", {
          request_id: m.id,
          method: request.method,
          route: routeLabel,
          path: pathOf(request.url),
          status,
          ms: Math.round(seconds * 100000) / 100,
        });
      }
    })
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        provider: "swagger-ui",
        swagger: { cdn: "/docs/assets/swagger-ui-bundle.js", theme: "/docs/assets/swagger-ui.css", autoDarkMode: true },
        documentation: {
          info: {
            title: "vitrin API",
            version: "0.1.0",
            description:
              "Product catalog with AI background removal, templated product videos, credits and signed webhooks. " +
              "Every /v1 route takes `Authorization: Bearer <token>`.",
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
          security: [{ bearer: [] }],
        },
        exclude: { paths: ["/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/files/*"] },
      }),
    )
    .get("/docs/assets/swagger-ui-bundle.js", () => new Response(Bun.file(swaggerBundle), {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
    }), { detail: { hide: true } })
    .get("/docs/assets/swagger-ui.css", () => new Response(Bun.file(swaggerCss), {
      headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=86400" },
    }), { detail: { hide: true } })
    .get("/healthz", () => ({ status: "ok" }), { detail: { tags: ["Operations"], summary: "Liveness (no dependencies)" } })
    .get(
      "/readyz",
      async ({ set }) => {
        const checks: Record<string, ReadyReport> = { ...(await ctx.readiness()), ...(await ctx.plugins.readiness()) };
        const shuttingDown = ctx.isShuttingDown();
        const ok = !shuttingDown && Object.values(checks).every((c) => c.ok);
        set.status = ok ? 200 : 503;
        return { status: ok ? "ready" : shuttingDown ? "shutting_down" : "not_ready", checks };
      },
      { detail: { tags: ["Operations"], summary: "Readiness: database, storage and plugins" } },
    )
    .get("/metrics", async () => new Response(await metrics.text(), { headers: { "content-type": metrics.contentType } }), {
      detail: { tags: ["Operations"], summary: "Prometheus metrics" },
    })
    .get(
      "/files/*",
      async ({ request, params }) => {
        const storage = ctx.plugins.storage;
        const key = decodeURIComponent(params["*"] ?? "");
        const res = storage.serve ? await storage.serve(key, request) : null;
        if (!res) throw errors.notFound("file");
        return res;
      },
      { detail: { hide: true } },
    )
    .head("/files/*", async ({ request, params }) => {
      const storage = ctx.plugins.storage;
      const res = storage.serve ? await storage.serve(decodeURIComponent(params["*"] ?? ""), request) : null;
      if (!res) throw errors.notFound("file");
      return res;
    }, { detail: { hide: true } });
}
