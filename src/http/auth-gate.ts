// The checks every guard runs around a token: the token comes from the `Authorization: Bearer` header only (never the
// query string, where it would end up in logs and proxies), a throttled address is turned away before its token is
// looked at, and each failure is counted for the throttle and for /metrics.
import type { BlockList } from "node:net";
import { errors, type ApiError } from "../kernel";
import type { AuthThrottle } from "./auth-throttle";
import { clientAddress, throttleKey, type PeerSource } from "./client-address";

export type GuardName = "account" | "admin";
/** `missing`: no bearer token was sent; `invalid`: one was sent and is wrong (only these count toward the throttle). */
export type FailureReason = "missing" | "invalid";

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or null. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (header === null) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1] : "";
}

export class AuthGate {
  constructor(
    private readonly throttle: AuthThrottle,
    private readonly trustedProxies: BlockList | null,
    private readonly countFailure: (guard: GuardName, reason: FailureReason) => void,
  ) {}

  /**
   * The throttle bucket this caller counts in, or null when it has none (in-process handling has no client address;
   * its callers are this process's own code and tests, not the network). Throws 429 when the bucket is spent.
   */
  admit(request: Request, server: PeerSource): string | null {
    if (!this.throttle.enabled) return null;
    const address = clientAddress(request, server, this.trustedProxies);
    if (address === null) return null;
    const key = throttleKey(address);
    const wait = this.throttle.retryAfter(key);
    if (wait > 0) throw errors.tooManyRequests(wait);
    return key;
  }

  /** Counts a failed authentication (a sent-but-wrong token also against `key`) and gives the 401 to throw. */
  reject(guard: GuardName, key: string | null, token: string | null, message?: string): ApiError {
    const reason: FailureReason = token === null ? "missing" : "invalid";
    this.countFailure(guard, reason);
    if (reason === "invalid" && key !== null) this.throttle.fail(key);
    return errors.unauthorized(message);
  }
}
