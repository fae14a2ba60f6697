// The error catalogue: every error the API can answer with, in the contract's `{error, message, ...extra}` shape.

export type ErrorExtra = Record<string, unknown>;

export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly extra: ErrorExtra;
  readonly headers: Record<string, string>;

  constructor(status: number, error: string, message: string, extra: ErrorExtra = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.error = error;
    this.extra = extra;
    this.headers = headers;
  }

  toJSON(): Record<string, unknown> {
    return { error: this.error, message: this.message, ...this.extra };
  }
}

export type FieldProblem = { field: string; message: string };

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const ALLOWED_IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

export const errors = {
  badRequest: (message: string) => new ApiError(400, "Bad request", message),
  unauthorized: (message = "A valid bearer token is required: send `Authorization: Bearer <token>`.") =>
    new ApiError(401, "Unauthorized", message, {}, { "www-authenticate": 'Bearer realm="vitrin"' }),
  insufficientCredits: (required: number, available: number) =>
    new ApiError(402, "Insufficient credits", `This needs ${required} credits but the balance is ${available}.`, {
      required,
      available,
    }),
  productLimit: (currentCount: number, maxAllowed: number) =>
    new ApiError(
      403,
      "Product limit reached",
      `An account can hold at most ${maxAllowed} products; delete one before creating another.`,
      { current_count: currentCount, max_allowed: maxAllowed },
    ),
  forbidden: (message: string) => new ApiError(403, "Forbidden", message),
  notFound: (what = "resource") => new ApiError(404, "Not found", `No such ${what}.`),
  routeNotFound: (method: string, path: string) => new ApiError(404, "Not found", `No route for ${method} ${path}.`),
  methodNotAllowed: (method: string, path: string) =>
    new ApiError(405, "Method not allowed", `${method} is not allowed on ${path}.`),
  conflict: (message: string, extra: ErrorExtra = {}) => new ApiError(409, "Conflict", message, extra),
  fileTooLarge: (maxSize = MAX_IMAGE_BYTES, message = `The image is larger than ${maxSize} bytes.`) =>
    new ApiError(413, "File too large", message, { max_size: maxSize }),
  bodyTooLarge: (maxSize: number) =>
    new ApiError(413, "File too large", `The request body is larger than ${maxSize} bytes.`, { max_size: maxSize }),
  unsupportedImage: (message = "The image must be a JPG, PNG or WebP file.") =>
    new ApiError(415, "Unsupported image format", message, { allowed: [...ALLOWED_IMAGE_TYPES] }),
  validation: (details: FieldProblem[], message?: string) =>
    new ApiError(
      422,
      "Validation failed",
      message ?? details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join("; "),
      { details },
    ),
  invalidField: (field: string, message: string) =>
    new ApiError(422, "Validation failed", `${field}: ${message}`, { details: [{ field, message }] }),
  /** A language no template words exist for: the supported ones are listed, so a client can offer them. */
  unsupportedLanguage: (field: string, message: string, supported: string[]) =>
    new ApiError(422, "Validation failed", `${field}: ${message}`, { details: [{ field, message }], supported_languages: supported }),
  tooManyRequests: (retryAfterSeconds: number) =>
    new ApiError(
      429,
      "Too many requests",
      `Rate limit exceeded; retry in ${retryAfterSeconds} s.`,
      { retry_after: retryAfterSeconds },
      { "retry-after": String(retryAfterSeconds) },
    ),
  internal: (requestId: string) =>
    new ApiError(500, "Internal error", "Something went wrong on our side; the request id helps us find it.", {
      request_id: requestId,
    }),
  unavailable: (message = "The service is not ready or is shutting down.") => new ApiError(503, "Unavailable", message),
  /** The database's write lock stayed taken (another process, a CLI command) for longer than a request may wait. */
  databaseBusy: (retryAfterSeconds = 1) =>
    new ApiError(
      503,
      "Unavailable",
      `The database is busy with another process's write; nothing was changed. Retry in ${retryAfterSeconds} s.`,
      { retry_after: retryAfterSeconds },
      { "retry-after": String(retryAfterSeconds) },
    ),
  /** The disk (or the database server's) is full: nothing of the request was kept, a retry works once space is freed. */
  insufficientStorage: (retryAfterSeconds = 60) =>
    new ApiError(
      507,
      "Insufficient storage",
      "The server has no disk space left to store this; nothing was kept. Retry once the operator has freed space.",
      { retry_after: retryAfterSeconds },
      { "retry-after": String(retryAfterSeconds) },
    ),
};

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
