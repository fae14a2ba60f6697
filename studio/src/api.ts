// The Studio's client of the public /v1 API: openapi-fetch typed by the generated api-types.d.ts, the session cookie
// (same origin) plus the X-CSRF-Token header on state changes, a 401 sends the visitor to /sign-in; error helpers.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./api-types";
import { asProblem, type ApiProblem } from "./problems";

export type { components, paths };
export { asProblem, fieldError, fieldErrors, unplacedErrors, type ApiProblem } from "./problems";
export type Schemas = components["schemas"];

let csrfToken: string | null = null;
let onUnauthorized: () => void = () => undefined;

/** Set by session.ts whenever a session starts or is read. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** What to do when the API says the session is gone (the app goes to /sign-in). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** Headers for a state-changing request made with the cookie: the CSRF token the session gave. */
export function csrfHeaders(method: string): Record<string, string> {
  return !SAFE.has(method.toUpperCase()) && csrfToken ? { "X-CSRF-Token": csrfToken } : {};
}

const session: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(csrfHeaders(request.method))) request.headers.set(name, value);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) onUnauthorized();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: "", credentials: "same-origin" });
api.use(session);

/**
 * fetch with the same rules as `api`, for what openapi-fetch does not fit (multipart uploads, the session routes).
 * 401 handling is optional: the sign-in page's own wrong-token answer must not bounce back to itself.
 */
export async function send(path: string, init: RequestInit = {}, opts: { on401?: boolean } = {}): Promise<Response> {
  const method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(csrfHeaders(method))) headers.set(name, value);
  const res = await fetch(path, { ...init, method, headers, credentials: "same-origin" });
  if (res.status === 401 && opts.on401 !== false) onUnauthorized();
  return res;
}

/** The body of a failed fetch Response as a catalogue error (a plain one when the body is not JSON). */
export async function problemOf(res: Response): Promise<ApiProblem> {
  const text = await res.text().catch(() => "");
  try {
    const parsed = asProblem(JSON.parse(text));
    if (parsed) return parsed;
  } catch {
    // Not JSON: a proxy's page or an empty body; the status line still says something.
  }
  return { error: res.statusText || "Error", code: `http_${res.status}`, message: text.slice(0, 200) || `HTTP ${res.status}` };
}
