export type ErrorExtra = Record<string, unknown>;
export declare class ApiError extends Error {
    readonly status: number;
    readonly error: string;
    readonly code: string;
    readonly extra: ErrorExtra;
    readonly headers: Record<string, string>;
    transient: boolean;
    constructor(status: number, code: string, error: string, message: string, extra?: ErrorExtra, headers?: Record<string, string>);
    passing(): this;
    toJSON(): Record<string, unknown>;
}
export type FieldProblem = {
    field: string;
    message: string;
};
export declare const MAX_IMAGE_BYTES: number;
export declare const ALLOWED_IMAGE_TYPES: readonly ["image/jpeg", "image/png", "image/webp"];
export declare const errors: {
    /** The body is not JSON, is not UTF-8, is not sent as `application/json`, nests deeper than 64 levels; a malformed Idempotency-Key; a payment notice whose signature fails. */
    badRequest: (message: string) => ApiError;
    /** The `Authorization: Bearer` header is missing (and no live Studio session cookie stands in), or its token is unknown or revoked (a token in the query string does not count); a wrong token at POST /studio/session. */
    unauthorized: (message?: string) => ApiError;
    /** A video costs more credits than the balance holds. */
    insufficientCredits: (required: number, available: number) => ApiError;
    /** A sixth product: an account holds at most five. */
    productLimit: (currentCount: number, maxAllowed: number) => ApiError;
    /** A state-changing request made with the Studio's session cookie whose `X-CSRF-Token` header is missing or is not the session's csrf_token. */
    csrfFailed: () => ApiError;
    /** A premium template asked for by an account that is not premium; a 17th webhook endpoint (16 at most per account). */
    forbidden: (message: string) => ApiError;
    /** An unknown id, another account's resource (never 403), or an unknown route. */
    notFound: (what?: string, hint?: string) => ApiError;
    /** A /v1/admin route while the admin API is off (VITRIN_ADMIN_TOKEN unset): the message says how to turn it on. */
    adminDisabled: () => ApiError;
    /** Any API route on a jobs-only instance (`vitrin worker`), which answers only /healthz, /readyz and /metrics. */
    workerOnly: () => ApiError;
    /** No route for this method and path. Not answered today: unknown routes and methods get notFound's "No such route.". */
    routeNotFound: (method: string, path: string) => ApiError;
    /** The renderer plugin makes no template previews (preview is optional in its slot's contract). */
    noPreviews: (renderer: string) => ApiError;
    /** A method the path does not take. Not answered today: a wrong method gets notFound's "No such route.". */
    methodNotAllowed: (method: string, path: string) => ApiError;
    /** An Idempotency-Key reused with another body or still in use (`idempotency_key`), dekupe retries used up (`retries_left`) or one running (`dekupe_status`), deleting the files of a video still queued or processing (`video_status`), re-driving a job that is not dead, a correction below zero. */
    conflict: (message: string, extra?: ErrorExtra) => ApiError;
    /** An image over 5 MB (5242880 bytes), announced or counted as it arrives; `field` names the image's field where one is known. */
    fileTooLarge: (maxSize?: number, message?: string, field?: string) => ApiError;
    /** A request body over VITRIN_MAX_BODY_BYTES, refused as soon as it passes the cap. */
    bodyTooLarge: (maxSize: number) => ApiError;
    /** An image that is not JPG, PNG or WebP by its bytes (whatever its name or Content-Type says); `field` names the image's field. */
    unsupportedImage: (field?: string, message?: string) => ApiError;
    /** The body or query breaks its schema: a wrong type or range, a missing field, an unknown body field or query parameter. */
    validation: (details: FieldProblem[], message?: string) => ApiError;
    /** One field is unusable: an image URL that is unreachable, refused or not a decodable image, an unknown cursor, a `limit` outside 1–100, an amount out of range, a NUL in text. */
    invalidField: (field: string, message: string) => ApiError;
    /** A language no template words exist for: the supported ones are listed, so a client can offer them. */
    unsupportedLanguage: (field: string, message: string, supported: string[]) => ApiError;
    /** A token past its rate limit, or a client address past VITRIN_AUTH_FAILURES_PER_MINUTE wrong tokens. */
    tooManyRequests: (retryAfterSeconds: number) => ApiError;
    /** A bug: the log has the stack trace under the request id, the answer does not. */
    internal: (requestId: string) => ApiError;
    /** The service is not ready or is shutting down, a payment provider could not start a payment, PostgreSQL kept refusing conflicting writes. */
    unavailable: (message?: string) => ApiError;
    /** The database's write lock stayed taken (another process, a CLI command) for longer than a request may wait. */
    databaseBusy: (retryAfterSeconds?: number) => ApiError;
    /** The disk (or the database server's) is full: nothing of the request was kept, a retry works once space is freed. */
    insufficientStorage: (retryAfterSeconds?: number) => ApiError;
};
export declare function isApiError(e: unknown): e is ApiError;
