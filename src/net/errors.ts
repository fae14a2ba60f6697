// The error type of outbound requests: one code per way a fetch of an untrusted URL can fail.

export type OutboundErrorCode =
  | "invalid_url" // not a parsable URL, or a malformed data: URL or redirect Location
  | "scheme" // not http(s)
  | "blocked_address" // the host is, or resolves to, an address that is not public
  | "dns" // the host name did not resolve
  | "timeout" // the whole request (DNS, connect, headers, body) took longer than allowed
  | "too_many_redirects"
  | "connect" // could not connect, or the connection broke
  | "tls" // certificate or handshake failure
  | "too_large"; // the body is bigger than the cap and overflow is "error"

export type Overflow = "error" | "truncate";

export class OutboundError extends Error {
  readonly code: OutboundErrorCode;

  constructor(code: OutboundErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OutboundError";
    this.code = code;
  }
}

export function isOutboundError(e: unknown): e is OutboundError {
  return e instanceof OutboundError;
}
