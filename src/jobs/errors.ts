// What a handler throws to steer its job's next step (retry at a set time, give up), and why an attempt was aborted.

/** Retry this job after exactly `delayMs` (e.g. a webhook's Retry-After) instead of the kind's backoff. Still counts as an attempt. */
export class RetryAfter extends Error {
  readonly delayMs: number;
  constructor(delayMs: number, message = `retry requested in ${delayMs} ms`) {
    super(message);
    this.name = "RetryAfter";
    // A negative or NaN delay would schedule into the past or nowhere; clamp so the row stays claimable.
    this.delayMs = Number.isFinite(delayMs) && delayMs > 0 ? Math.round(delayMs) : 0;
  }
}

/** No attempt can ever succeed (bad input, deleted product): the job goes straight to `dead`. */
export class PermanentFailure extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PermanentFailure";
  }
}

/**
 * The reason on a handler's AbortSignal: the engine is shutting down, the attempt timed out, or the lease was lost
 * (another worker rescued the job). In every case the handler's result no longer counts, so it should stop.
 */
export class JobAborted extends Error {
  readonly why: "shutdown" | "timeout" | "lease-lost";
  constructor(why: "shutdown" | "timeout" | "lease-lost", message: string) {
    super(message);
    this.name = "JobAborted";
    this.why = why;
  }
}
