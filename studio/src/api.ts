// The Studio's client of the public /v1 API: openapi-fetch typed by the generated api-types.d.ts, the session cookie
// (same origin) plus the X-CSRF-Token header on state changes, a 401 sends the visitor to /sign-in; error helpers.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./api-types";

export type { components, paths };
export type Schemas = components["schemas"];

/** A catalogue error body: `{ error, code, message, details?: [{field, message}], ...extra }`. */
export type ApiProblem = {
  error: string;
  code: string;
  message: string;
  details?: { field: string; message: string }[];
  [extra: string]: unknown;
};

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

/** Reads a catalogue error from anything openapi-fetch or fetch gave back; null when it is not one. */
export function asProblem(value: unknown): ApiProblem | null {
  if (!value || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (typeof v.message !== "string") return null;
  return {
    ...v,
    error: typeof v.error === "string" ? v.error : "Error",
    code: typeof v.code === "string" ? v.code : "unknown",
    message: v.message,
  } as ApiProblem;
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

/**
 * Per-field messages of a 422: `{ "user_prompt.headline": "must be at most 40 characters" }`. Field paths are kept
 * as the API names them; a form maps its inputs to them (see fieldError).
 */
export function fieldErrors(problem: ApiProblem | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of problem?.details ?? []) {
    if (d && typeof d.field === "string" && typeof d.message === "string" && !(d.field in out)) out[d.field] = d.message;
  }
  return out;
}

/** The message for one input: its exact path, or a path the API wrote with a slash or a bracket (`user_prompt/headline`). */
export function fieldError(errors: Record<string, string>, field: string): string | undefined {
  if (errors[field]) return errors[field];
  const wanted = normalizeField(field);
  for (const [name, message] of Object.entries(errors)) if (normalizeField(name) === wanted) return message;
  // A list's item (`features.2`) belongs to the list's one input.
  for (const [name, message] of Object.entries(errors)) if (normalizeField(name).startsWith(`${wanted}.`)) return message;
  return undefined;
}

function normalizeField(field: string): string {
  return field
    .replace(/^\/+|^body\.?/, "")
    .replace(/\[(\w+)\]/g, ".$1")
    .replace(/\//g, ".");
}

/** Field problems no input of the form shows (so the form can list them in its alert instead of losing them). */
export function unplacedErrors(errors: Record<string, string>, shown: string[]): string[] {
  const placed = shown.map(normalizeField);
  const isPlaced = (name: string) => placed.some((p) => name === p || name.startsWith(`${p}.`));
  return Object.entries(errors)
    .filter(([name]) => !isPlaced(normalizeField(name)))
    .map(([name, message]) => (name ? `${name}: ${message}` : message));
}
