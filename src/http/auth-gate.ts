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
   * Throws 429 when the caller's address has spent its failures. The address is only worked out while some address
   * is turned away (see AuthThrottle.blocking); in-process handling has no address, and its callers are this
   * process's own code and tests, not the network.
   */
  admit(request: Request, server: PeerSource): void {
    if (!this.throttle.blocking) return;
    const key = this.callerKey(request, server);
    if (key === null) return;
    const wait = this.throttle.retryAfter(key);
    if (wait > 0) throw errors.tooManyRequests(wait);
  }

  /** Counts a failed authentication (a sent-but-wrong token also against the caller's address) and gives the 401. */
  reject(guard: GuardName, request: Request, server: PeerSource, token: string | null, message?: string): ApiError {
    const reason: FailureReason = token === null ? "missing" : "invalid";
    this.countFailure(guard, reason);
    if (reason === "invalid" && this.throttle.enabled) {
      const key = this.callerKey(request, server);
      if (key !== null) this.throttle.fail(key);
    }
    return errors.unauthorized(message);
  }

  /** The throttle bucket a caller counts in, or null when it has no address. */
  private callerKey(request: Request, server: PeerSource): string | null {
    const address = clientAddress(request, server, this.trustedProxies);
    return address === null ? null : throttleKey(address);
  }
}
