// Serving the Studio: its hashed assets under /studio/assets/ (cached for a year), and index.html for the browser
// app's own URLs (the app routes in the page), each with the strict CSP and the other security headers, an ETag
// answered with 304, and gzip when the browser takes it. A browser navigating to an unknown address outside the API
// gets the page too, with status 404, so the Studio's own not-found page shows; anything else stays a JSON 404.
import { Elysia } from "elysia";
import { errors } from "../kernel";
import type { PreparedFile, StudioAssets } from "./files";

/** The Studio's pages; the server answers each with index.html. */
export const STUDIO_PAGES = [
  "/",
  "/sign-in",
  "/products",
  "/products/:id",
  "/videos",
  "/videos/:id",
  "/balance",
  "/developers",
  "/admin",
  "/admin/accounts",
  "/admin/accounts/:id",
  "/admin/jobs",
] as const;

/** The file a path is answered with (index.html for a page, the asset itself), or null for any other path. */
const PAGE_PATTERNS = STUDIO_PAGES.map((p) => new RegExp(`^${p.replace(/:id/, "[^/]+")}$`));
function studioPath(pathname: string): string | null {
  if (pathname.startsWith("/studio/assets/")) return pathname;
  return PAGE_PATTERNS.some((re) => re.test(pathname)) ? "/index.html" : null;
}

/** The API's own paths: an unknown address there is the API's JSON 404, whoever asks (a browser too). */
const API_PATHS = /^\/(?:v1(?:\/|$)|files(?:\/|$)|docs(?:\/|$)|openapi\.json$|studio\/|healthz$|readyz$|metrics$)/;

/** A browser navigating (it asks for HTML) to an address outside the API: a mistyped Studio address. */
function browserNavigation(request: Request): boolean {
  return /\btext\/html\b/.test(request.headers.get("accept") ?? "") && !API_PATHS.test(new URL(request.url).pathname);
}

/**
 * The Studio's Content-Security-Policy. Images and videos may also come from `fileOrigins`: where the storage plugin's
 * links point when that is not this service (an S3 bucket's presigned links, a CDN), or the Studio could show none.
 */
export function studioCsp(fileOrigins: string[] = []): string {
  const files = fileOrigins.map((o) => ` ${o}`).join("");
  return (
    `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'${files} blob: data:; media-src 'self'${files} blob:; ` +
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
  );
}

/** The policy of a Studio whose files are served by the service itself (local disk). */
export const STUDIO_CSP = studioCsp();

type SecurityHeaders = Record<"content-security-policy" | "x-content-type-options" | "referrer-policy", string>;

function securityHeaders(csp: string): SecurityHeaders {
  return { "content-security-policy": csp, "x-content-type-options": "nosniff", "referrer-policy": "same-origin" };
}

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included). */
function matches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}

/** One file's answer: 304 when the browser has it, else its bytes (gzipped when it may), HEAD without them. */
export function fileResponse(file: PreparedFile, request: Request, security: SecurityHeaders = securityHeaders(STUDIO_CSP)): Response {
  const headers: Record<string, string> = {
    ...security,
    etag: file.etag,
    "cache-control": file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
  };
  if (file.gzip) headers.vary = "Accept-Encoding";
  if (matches(request.headers.get("if-none-match"), file.etag)) return new Response(null, { status: 304, headers });
  headers["content-type"] = file.type;
  const gzip = file.gzip !== null && /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  if (gzip) headers["content-encoding"] = "gzip";
  const body = gzip ? file.gzip! : file.body;
  headers["content-length"] = String(body.length);
  return new Response(request.method === "HEAD" ? null : body, { headers });
}

/** The routes; `fileOrigins` are the origins of stored files' links other than this service's (see studioCsp). */
export function studioRoutes(assets: StudioAssets, fileOrigins: string[] = []) {
  const security = securityHeaders(studioCsp(fileOrigins));
  const serve = async (path: string, request: Request) => {
    const file = await assets.get(path);
    if (!file) throw errors.notFound("file");
    return fileResponse(file, request, security);
  };
  const page = ({ request }: { request: Request }) => serve("/index.html", request);
  const headAnswer = async (path: string, request: Request, requestId: string): Promise<Response> => {
    const file = await assets.get(path);
    // A HEAD answer has no body to explain itself in: the status says it.
    const res = file ? fileResponse(file, request, security) : new Response(null, { status: 404 });
    res.headers.set("x-request-id", requestId);
    return res;
  };
  // HEAD is answered before routing: Elysia would run the GET handler and count the (absent) body as Content-Length 0.
  // Not an async hook: Elysia awaits those on every request, HEAD or not. Every other request gets undefined at once;
  // a HEAD of the Studio's gets a promise that always settles to its answer.
  const head = ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) => {
    const path = request.method === "HEAD" ? studioPath(new URL(request.url).pathname) : null;
    return path === null ? undefined : headAnswer(path, request, String(set.headers["x-request-id"] ?? ""));
  };
  const app = new Elysia({ name: "vitrin-studio", normalize: false }).onRequest(head).get(
    "/studio/assets/*",
    ({ request, params }) => serve(`/studio/assets/${params["*"]}`, request),
    { detail: { hide: true } },
  );
  for (const path of STUDIO_PAGES) app.get(path, page, { detail: { hide: true } });
  return app;
}

/**
 * The answer to a browser that navigated to an address nothing serves, outside the API's paths: the Studio's page with
 * status 404, so its own not-found page shows (the HTTP layer's not-found handler asks; null: the usual JSON 404). No
 * 304 for it, so the status says 404 each time; only the encoding the browser takes is kept.
 */
export function studioNotFound(assets: StudioAssets, fileOrigins: string[] = []): (request: Request) => Promise<Response | null> {
  const security = securityHeaders(studioCsp(fileOrigins));
  return async (request) => {
    if (request.method !== "GET" || !browserNavigation(request)) return null;
    const file = await assets.get("/index.html");
    if (!file) return null;
    const plain = new Request(request.url, { method: request.method, headers: { "accept-encoding": request.headers.get("accept-encoding") ?? "" } });
    const res = fileResponse(file, plain, security);
    const headers = new Headers(res.headers);
    headers.delete("etag");
    return new Response(res.body, { status: 404, headers });
  };
}
