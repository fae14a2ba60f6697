// Outbound requests' error type: one code per way fetching an untrusted URL can fail, and fetch failures mapped to it.

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

/** The `code` a failed fetch or socket error carries ("" when none). */
export function errorCode(e: unknown): string {
  return typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : "";
}

/** A failed fetch as an OutboundError: "tls" for certificate and handshake failures, "connect" for the rest. */
export function fetchFailure(e: unknown): OutboundError {
  const code = errorCode(e);
  const detail = e instanceof Error ? e.message : String(e);
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|HANDSHAKE/i.test(code)) {
    return new OutboundError("tls", `TLS failed: ${code}.`, { cause: e });
  }
  return new OutboundError("connect", `Connection failed: ${code || detail}.`, { cause: e });
}
