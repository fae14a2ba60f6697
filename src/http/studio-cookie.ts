// The Studio's session cookie: reading it, writing and clearing it (HttpOnly, SameSite=Strict, Secure over https), the
// CSRF check of state-changing requests made with it, and whether a request arrived over https.
import { timingSafeEqual } from "node:crypto";
import type { BlockList } from "node:net";
import { SESSION_ABSOLUTE_MS, type StudioSession } from "../accounts";
import { errors } from "../kernel";
import { isTrustedPeer, type PeerSource } from "./client-address";

export const SESSION_COOKIE = "vitrin_session";
const COOKIE_PATTERN = /(?:^|;)\s*vitrin_session=([^;]*)/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The session secret of the request's cookie, or null when it sent none. */
export function sessionSecret(request: Request): string | null {
  const header = request.headers.get("cookie");
  if (header === null) return null;
  const match = COOKIE_PATTERN.exec(header);
  return match ? match[1].trim() : null;
}

/** Set-Cookie for a new session; Max-Age is the session's absolute lifetime (the server may end it sooner). */
export function sessionCookie(secret: string, secure: boolean): string {
  const age = Math.floor(SESSION_ABSOLUTE_MS / 1000);
  return `${SESSION_COOKIE}=${secret}; Path=/; Max-Age=${age}; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** Set-Cookie that makes the browser forget the session. */
export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/**
 * 403 unless a state-changing request carries the session's CSRF token in X-CSRF-Token. Another site can make a
 * browser send the cookie (SameSite=Strict already stops most of it) but cannot read the token to send it back.
 */
export function checkCsrf(request: Request, session: StudioSession): void {
  if (SAFE_METHODS.has(request.method)) return;
  const given = new TextEncoder().encode(request.headers.get("x-csrf-token") ?? "");
  const expected = new TextEncoder().encode(session.csrfToken);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw errors.csrfFailed();
}

/** Whether the browser reached us over https: directly, or through a proxy the operator trusts saying so. */
export function isHttps(request: Request, server: PeerSource, trusted: BlockList | null): boolean {
  if (request.url.startsWith("https:")) return true;
  const proto = request.headers.get("x-forwarded-proto");
  if (proto === null || proto.split(",")[0].trim().toLowerCase() !== "https") return false;
  return trusted !== null && isTrustedPeer(request, server, trusted);
}
