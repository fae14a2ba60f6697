// Guards for /v1 routes: account bearer tokens (with per-token rate limits and Idempotency-Key handling) and the
// operator's admin token. Route modules `.use()` one of these, so the guard's hooks apply to their routes only.
// A request without an Authorization header may instead carry the Studio's session cookie (its writes need the CSRF
// header); the bearer path never looks at cookies.
import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import type { Accounts, Principal, StudioSession, StudioSessions } from "../accounts";
import { errors } from "../kernel";
import { bearerToken, type AuthGate } from "./auth-gate";
import type { Idempotency } from "./idempotency";
import { reserveIdempotencyKey, storeIdempotentAnswer } from "./idempotency-hooks";
import type { RateLimiter } from "./ratelimit";
import type { RequestMetas } from "./request-meta";
import { checkCsrf, sessionSecret } from "./studio-cookie";

export type GuardDeps = {
  accounts: Accounts;
  limiter: RateLimiter;
  idempotency: Idempotency;
  meta: RequestMetas;
  adminToken: string | null;
  /** Header-only tokens, the failed-authentication throttle and its counters, shared by every guard. */
  auth: AuthGate;
  /** The Studio's browser sessions, for requests that carry the session cookie instead of a bearer token. */
  sessions: StudioSessions;
};

/** What the admin guard needs: route modules that only serve the operator take just this. */
export type AdminGuardDeps = Pick<GuardDeps, "adminToken" | "auth" | "sessions">;

/** The live session of the request's cookie when it is of `kind`, its CSRF header checked (403); null otherwise. */
async function cookieSession(sessions: StudioSessions, request: Request, kind: StudioSession["kind"]): Promise<StudioSession | null> {
  const secret = sessionSecret(request);
  if (secret === null) return null;
  const session = await sessions.resolve(secret);
  if (!session || session.kind !== kind) return null;
  checkCsrf(request, session);
  return session;
}

/** Who a request without a bearer token is: an account session's account, its rate limit counted per session opener. */
async function cookiePrincipal(deps: GuardDeps, request: Request): Promise<Principal | null> {
  const session = await cookieSession(deps.sessions, request, "account");
  return session ? { accountId: session.accountId!, tokenId: session.openedWith } : null;
}

export function accountGuard(deps: GuardDeps) {
  return new Elysia({ normalize: false })
    .derive({ as: "scoped" }, async ({ request, server, set }): Promise<{ principal: Principal }> => {
      deps.auth.admit(request, server);
      const token = bearerToken(request);
      const principal = token ? await deps.accounts.authenticate(token) : token === null ? await cookiePrincipal(deps, request) : null;
      if (!principal) throw deps.auth.reject("account", request, server, token, token ? unknownTokenMessage(deps, token) : undefined);
      if (deps.limiter.enabled) {
        const decision = await deps.limiter.check(principal.tokenId);
        const headers = deps.limiter.headers(decision);
        for (const name in headers) set.headers[name] = headers[name];
        if (!decision.allowed) {
          const err = errors.tooManyRequests(decision.retryAfterSeconds);
          Object.assign(err.headers, headers);
          throw err;
        }
      }
      return { principal };
    })
    // Elysia reads which context fields a hook names and prepares only those (a hook taking the whole context made
    // every request parse its cookies too); it awaits a hook whose text reads `=> call(`, so each stays on one line.
    .onBeforeHandle({ as: "scoped" }, ({ principal, request, body, path }) => reserveIdempotencyKey(deps, principal.accountId, { request, body, path }))
    .onAfterHandle({ as: "scoped" }, ({ request, responseValue, set }) => storeIdempotentAnswer(deps, { request, responseValue, set }));
}

/** Same bytes, in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string | null): boolean {
  if (expected === null) return false;
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Why an account route refused a bearer token: the operator's own token is named as such, since it is no account's. */
function unknownTokenMessage(deps: GuardDeps, token: string): string {
  if (sameSecret(token, deps.adminToken)) {
    return "This is the operator's VITRIN_ADMIN_TOKEN, which works on /v1/admin only; account routes take an account's API token.";
  }
  return "The bearer token is unknown or revoked.";
}

/** Admin routes: off (404 saying how to turn them on) when no VITRIN_ADMIN_TOKEN is set, 401 for any other token. */
export function adminGuard(deps: AdminGuardDeps) {
  // derive runs before body validation, so a caller without the token learns nothing about the schema.
  return new Elysia({ normalize: false }).derive({ as: "scoped" }, async ({ request, server }) => {
    if (!deps.adminToken) throw errors.adminDisabled();
    deps.auth.admit(request, server);
    const token = bearerToken(request);
    if (token === null && (await cookieSession(deps.sessions, request, "admin"))) return { admin: true as const };
    if (!sameSecret(token ?? "", deps.adminToken)) throw deps.auth.reject("admin", request, server, token, "The admin API needs `Authorization: Bearer <VITRIN_ADMIN_TOKEN>`.");
    return { admin: true as const };
  });
}
