// The operational routes beside the API: liveness and readiness, Prometheus metrics, stored files, and the API docs
// (the OpenAPI options and Swagger UI's own assets, served from the package rather than a CDN).
import { Elysia, t } from "elysia";
import type { ElysiaOpenAPIConfig } from "@elysiajs/openapi";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import favicon from "swagger-ui-dist/favicon-32x32.png" with { type: "file" };
import { errors } from "../kernel";
import { serveStored, type Plugins, type ReadyReport } from "../plugins";
import type { Metrics } from "./metrics";
import { ok, operation, sharedComponents, webhookEvents } from "./openapi-docs";

/** /readyz's answer: the overall status and each check's report. */
const readiness = t.Object({
  status: t.Union([t.Literal("ready"), t.Literal("not_ready"), t.Literal("shutting_down")]),
  checks: t.Record(t.String(), t.Object({ ok: t.Boolean() }, { additionalProperties: true })),
});

/** What these routes need of the HTTP context. */
export type OperationsDeps = {
  plugins: Plugins;
  metrics: Metrics;
  readiness: () => Promise<Record<string, ReadyReport>>;
  isShuttingDown: () => boolean;
};

export const apiDocs = {
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
    components: sharedComponents,
    security: [{ bearer: [] }],
    webhooks: webhookEvents,
  },
  exclude: { paths: ["/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/favicon.ico", "/files/*"] },
} satisfies ElysiaOpenAPIConfig<true, "/docs">;

/**
 * A stored file as its storage plugin serves it (local storage does; S3 hands out its own URLs). `?download=NAME`
 * asks for it as a download under that name (made safe, with the file's own extension): the Studio's `Download`.
 */
async function serveFile(ctx: OperationsDeps, request: Request, path: string | undefined): Promise<Response> {
  const res = await serveStored(ctx.plugins.storage, decodeURIComponent(path ?? ""), request);
  if (!res) throw errors.notFound("file");
  return res;
}

/**
 * HEAD /files/*, answered before routing. Elysia answers HEAD on a wildcard route through its GET handler and counts
 * the body it gets to set Content-Length: a HEAD answer has no body, so it said 0 — and a body would be read whole,
 * a video's every byte, just to be counted. The storage's own answer already carries the real length.
 */
function headOfFile(ctx: OperationsDeps) {
  const answer = async (request: Request, path: string, requestId: string): Promise<Response> => {
    try {
      const res = await serveFile(ctx, request, path);
      res.headers.set("x-request-id", requestId);
      return res;
    } catch {
      // A HEAD answer has no body to explain itself in: the status says it.
      return new Response(null, { status: 404 });
    }
  };
  // Not an async hook: Elysia awaits those on every request, HEAD or not. Every other request gets undefined at once;
  // a HEAD of /files/ gets a promise that always settles to its answer.
  return ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) => {
    const pathname = request.method === "HEAD" ? new URL(request.url).pathname : "";
    const file = pathname.startsWith("/files/") ? pathname.slice("/files/".length) : null;
    return file === null ? undefined : answer(request, file, String(set.headers["x-request-id"] ?? ""));
  };
}

/**
 * /docs/ goes to /docs. The page names its document relatively ("openapi.json"), so served at /docs/ it would look
 * for /docs/openapi.json and show an error; Elysia answers /docs/ with the page itself, hence before routing.
 */
function docsWithSlash({ request }: { request: Request }) {
  if (request.url.endsWith("/docs/") && new URL(request.url).pathname === "/docs/") {
    return new Response(null, { status: 308, headers: { location: "/docs" } });
  }
}

export function operationRoutes(ctx: OperationsDeps) {
  const cached = { "cache-control": "public, max-age=86400" };
  return new Elysia({ normalize: false })
    .onRequest(headOfFile(ctx))
    .get("/docs/assets/swagger-ui-bundle.js", () => new Response(Bun.file(swaggerBundle), {
      headers: { "content-type": "text/javascript; charset=utf-8", ...cached },
    }), { detail: { hide: true } })
    .get("/docs/assets/swagger-ui.css", () => new Response(Bun.file(swaggerCss), {
      headers: { "content-type": "text/css; charset=utf-8", ...cached },
    }), { detail: { hide: true } })
    .onRequest(docsWithSlash)
    // Browsers ask every host for a favicon: Swagger UI's, the page it shows being the docs.
    .get("/favicon.ico", () => new Response(Bun.file(favicon), { headers: { "content-type": "image/png", ...cached } }), {
      detail: { hide: true },
    })
    .get("/healthz", () => ({ status: "ok" }), {
      detail: operation({
        tags: ["Operations"],
        summary: "Liveness (no dependencies)",
        auth: "none",
        ok: ok(200, t.Object({ status: t.Literal("ok") }), "Alive"),
      }),
    })
    .get(
      "/readyz",
      async ({ set }) => {
        const checks: Record<string, ReadyReport> = { ...(await ctx.readiness()), ...(await ctx.plugins.readiness()) };
        const shuttingDown = ctx.isShuttingDown();
        const ok = !shuttingDown && Object.values(checks).every((c) => c.ok);
        set.status = ok ? 200 : 503;
        return { status: ok ? "ready" : shuttingDown ? "shutting_down" : "not_ready", checks };
      },
      {
        detail: operation({
          tags: ["Operations"],
          summary: "Readiness: database, storage and plugins",
          auth: "none",
          ok: ok(200, readiness, "Ready"),
          responses: { 503: { description: "Not ready, or shutting down", content: { "application/json": { schema: readiness } } } },
        }),
      },
    )
    .get("/metrics", async () => new Response(await ctx.metrics.text(), { headers: { "content-type": ctx.metrics.contentType } }), {
      detail: operation({
        tags: ["Operations"],
        summary: "Prometheus metrics",
        auth: "none",
        responses: { 200: { description: "Metrics in the Prometheus text format", content: { "text/plain": { schema: { type: "string" } } } } },
      }),
    })
    .get("/files/*", ({ request, params }) => serveFile(ctx, request, params["*"]), { detail: { hide: true } });
}
