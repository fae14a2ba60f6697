// The error catalogue: every error the API can answer with, in the contract's `{error, code, message, ...extra}` shape.

export type ErrorExtra = Record<string, unknown>;

export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  // Stable snake_case name of the catalogue entry, for programs (`error` and `message` are for people).
  readonly code: string;
  readonly extra: ErrorExtra;
  readonly headers: Record<string, string>;
  // The cause lies outside the request and may pass (a remote host that timed out or answered 5xx): an
  // Idempotency-Key is then freed, not bound to this answer, so a retry with the same key can succeed later.
  transient = false;

  constructor(status: number, code: string, error: string, message: string, extra: ErrorExtra = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.error = error;
    this.extra = extra;
    this.headers = headers;
  }

  // Marks the error transient (see `transient`) and returns it: `throw errors.x(...).passing()`.
  passing(): this {
    this.transient = true;
    return this;
  }

  toJSON(): Record<string, unknown> {
    return { error: this.error, code: this.code, message: this.message, ...this.extra };
  }
}

export type FieldProblem = { field: string; message: string };

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const ALLOWED_IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

// Each entry's doc comment says when it is answered: scripts/docs-errors.ts turns them into the error table of docs/api.md.
export const errors = {
  /** The body is not JSON, is not UTF-8, is not sent as `application/json`, nests deeper than 64 levels; a malformed Idempotency-Key; a payment notice whose signature fails. */
  badRequest: (message: string) => new ApiError(400, "bad_request", "Bad request", message),
  /** The `Authorization: Bearer` header is missing (and no live Studio session cookie stands in), or its token is unknown or revoked (a token in the query string does not count); a wrong token at POST /studio/session. */
  unauthorized: (message = "A valid bearer token is required: send `Authorization: Bearer <token>`.") =>
    new ApiError(401, "unauthorized", "Unauthorized", message, {}, { "www-authenticate": 'Bearer realm="vitrin"' }),
  /** A video costs more credits than the balance holds. */
  insufficientCredits: (required: number, available: number) =>
    new ApiError(402, "insufficient_credits", "Insufficient credits", `This needs ${required} ${required === 1 ? "credit" : "credits"} but the balance is ${available}.`, {
      required,
      available,
    }),
  /** A sixth product: an account holds at most five. */
  productLimit: (currentCount: number, maxAllowed: number) =>
    new ApiError(
      403,
      "product_limit_reached",
      "Product limit reached",
      `An account can hold at most ${maxAllowed} products; delete one before creating another.`,
      { current_count: currentCount, max_allowed: maxAllowed },
    ),
  /** A state-changing request made with the Studio's session cookie whose `X-CSRF-Token` header is missing or is not the session's csrf_token. */
  csrfFailed: () =>
    new ApiError(
      403,
      "csrf_failed",
      "Forbidden",
      "A request made with the session cookie must send the session's csrf_token in the X-CSRF-Token header (GET /studio/session gives it).",
    ),
  /** A premium template asked for by an account that is not premium; a 17th webhook endpoint (16 at most per account). */
  forbidden: (message: string) => new ApiError(403, "forbidden", "Forbidden", message),
  /** An unknown id, another account's resource (never 403), or an unknown route. */
  notFound: (what = "resource", hint?: string) => new ApiError(404, "not_found", "Not found", hint ? `No such ${what}. ${hint}` : `No such ${what}.`),
  /** A /v1/admin route while the admin API is off (VITRIN_ADMIN_TOKEN unset): the message says how to turn it on. */
  adminDisabled: () =>
    new ApiError(
      404,
      "admin_api_disabled",
      "Not found",
      "The admin API is off on this instance: set VITRIN_ADMIN_TOKEN to a long random secret and restart to turn it on.",
    ),
  /** Any API route on a jobs-only instance (`vitrin worker`), which answers only /healthz, /readyz and /metrics. */
  workerOnly: () =>
    new ApiError(
      404,
      "worker_instance",
      "Not found",
      "This is a worker instance: it runs jobs and answers only /healthz, /readyz and /metrics.",
    ),
  /** No route for this method and path. Not answered today: unknown routes and methods get notFound's "No such route.". */
  routeNotFound: (method: string, path: string) => new ApiError(404, "route_not_found", "Not found", `No route for ${method} ${path}.`),
  /** The renderer plugin makes no template previews (preview is optional in its slot's contract). */
  noPreviews: (renderer: string) => new ApiError(404, "previews_not_supported", "Not found", `The renderer "${renderer}" makes no template previews.`),
  /** A method the path does not take. Not answered today: a wrong method gets notFound's "No such route.". */
  methodNotAllowed: (method: string, path: string) =>
    new ApiError(405, "method_not_allowed", "Method not allowed", `${method} is not allowed on ${path}.`),
  /** An Idempotency-Key reused with another body or still in use (`idempotency_key`), dekupe retries used up (`retries_left`) or one running (`dekupe_status`), deleting the files of a video still queued or processing (`video_status`), re-driving a job that is not dead, a correction below zero. */
  conflict: (message: string, extra: ErrorExtra = {}) => new ApiError(409, "conflict", "Conflict", message, extra),
  /** An image over 5 MB (5242880 bytes), announced or counted as it arrives; `field` names the image's field where one is known. */
  fileTooLarge: (maxSize = MAX_IMAGE_BYTES, message = `The image is larger than ${maxSize} bytes.`, field?: string) =>
    new ApiError(413, "file_too_large", "File too large", message, field ? { max_size: maxSize, field } : { max_size: maxSize }),
  /** A request body over VITRIN_MAX_BODY_BYTES, refused as soon as it passes the cap. */
  bodyTooLarge: (maxSize: number) =>
    new ApiError(413, "body_too_large", "File too large", `The request body is larger than ${maxSize} bytes.`, { max_size: maxSize }),
  /** An image that is not JPG, PNG or WebP by its bytes (whatever its name or Content-Type says); `field` names the image's field. */
  unsupportedImage: (field?: string, message = "The image must be a JPG, PNG or WebP file.") =>
    new ApiError(415, "unsupported_image_format", "Unsupported image format", message, field ? { allowed: [...ALLOWED_IMAGE_TYPES], field } : { allowed: [...ALLOWED_IMAGE_TYPES] }),
  /** The body or query breaks its schema: a wrong type or range, a missing field, an unknown body field or query parameter. */
  validation: (details: FieldProblem[], message?: string) =>
    new ApiError(
      422,
      "validation_failed",
      "Validation failed",
      message ?? details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join("; "),
      { details },
    ),
  /** One field is unusable: an image URL that is unreachable, refused or not a decodable image, an unknown cursor, a `limit` outside 1–100, an amount out of range, a NUL in text. */
  invalidField: (field: string, message: string) =>
    new ApiError(422, "validation_failed", "Validation failed", `${field}: ${message}`, { details: [{ field, message }] }),
  /** A language no template words exist for: the supported ones are listed, so a client can offer them. */
  unsupportedLanguage: (field: string, message: string, supported: string[]) =>
    new ApiError(422, "unsupported_language", "Validation failed", `${field}: ${message}`, { details: [{ field, message }], supported_languages: supported }),
  /** A token past its rate limit, or a client address past VITRIN_AUTH_FAILURES_PER_MINUTE wrong tokens. */
  tooManyRequests: (retryAfterSeconds: number) =>
    new ApiError(
      429,
      "rate_limited",
      "Too many requests",
      `Rate limit exceeded; retry in ${retryAfterSeconds} s.`,
      { retry_after: retryAfterSeconds },
      { "retry-after": String(retryAfterSeconds) },
    ),
  /** A bug: the log has the stack trace under the request id, the answer does not. */
  internal: (requestId: string) =>
    new ApiError(500, "internal_error", "Internal error", "Something went wrong on our side; the request id helps us find it.", {
      request_id: requestId,
    }),
  /** The service is not ready or is shutting down, a payment provider could not start a payment, PostgreSQL kept refusing conflicting writes. */
  unavailable: (message = "The service is not ready or is shutting down.") => new ApiError(503, "unavailable", "Unavailable", message),
  /** The database's write lock stayed taken (another process, a CLI command) for longer than a request may wait. */
  databaseBusy: (retryAfterSeconds = 1) =>
    new ApiError(
      503,
      "database_busy",
      "Unavailable",
      `The database is busy with another process's write; nothing was changed. Retry in ${retryAfterSeconds} s.`,
      { retry_after: retryAfterSeconds },
      { "retry-after": String(retryAfterSeconds) },
    ),
  /** The disk (or the database server's) is full: nothing of the request was kept, a retry works once space is freed. */
  insufficientStorage: (retryAfterSeconds = 60) =>
    new ApiError(
      507,
      "insufficient_storage",
      "Insufficient storage",
      "The server has no disk space left to store this; nothing was kept. Retry once the operator has freed space.",
      { retry_after: retryAfterSeconds },
      { "retry-after": String(retryAfterSeconds) },
    ),
};

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
