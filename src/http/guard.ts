// Guards for /v1 routes: account bearer tokens (with per-token rate limits and Idempotency-Key handling) and the
// operator's admin token. Route modules `.use()` one of these, so the guard's hooks apply to their routes only.
import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { bearer } from "@elysiajs/bearer";
import type { Accounts, Principal } from "../accounts";
import { errors } from "./errors";
import { requestHash, validKey, type Idempotency } from "./idempotency";
import type { RateLimiter } from "./ratelimit";
import type { RequestMeta } from "./index";

export type GuardDeps = {
  accounts: Accounts;
  limiter: RateLimiter;
  idempotency: Idempotency;
  meta: WeakMap<Request, RequestMeta>;
  adminToken: string | null;
};

export function accountGuard(deps: GuardDeps) {
  return new Elysia({ normalize: false })
    .use(bearer())
    .derive({ as: "scoped" }, async ({ bearer: token, request, set }): Promise<{ principal: Principal }> => {
      const principal = token ? await deps.accounts.authenticate(token) : null;
      if (!principal) throw errors.unauthorized(token ? "The bearer token is unknown or revoked." : undefined);
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
    .onBeforeHandle({ as: "scoped" }, async ({ request, principal, body, path }) => {
      if (request.method !== "POST") return;
      const key = request.headers.get("idempotency-key");
      if (key === null) return;
      if (!validKey(key)) throw errors.badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters.");
      const started = await deps.idempotency.start(principal.accountId, key, requestHash(request.method, path, body));
      if (started.replay) {
        return new Response(started.body, {
          status: started.status,
          headers: {
            "content-type": "application/json; charset=utf-8",
            "idempotent-replayed": "true",
            "x-request-id": deps.meta.get(request)?.id ?? "",
          },
        });
      }
      const m = deps.meta.get(request);
      if (m) m.idempotency = { accountId: principal.accountId, key };
    })
    .onAfterHandle({ as: "scoped" }, async ({ request, responseValue, set }) => {
      const m = deps.meta.get(request);
      if (!m?.idempotency) return;
      const status = typeof set.status === "number" ? set.status : 200;
      await deps.idempotency.finish(m.idempotency.accountId, m.idempotency.key, status, JSON.stringify(responseValue ?? null));
      m.idempotency = undefined;
    });
}

/** Admin routes: off (404) when no VITRIN_ADMIN_TOKEN is set, 401 for any other token. */
export function adminGuard(deps: Pick<GuardDeps, "adminToken">) {
  const expected = deps.adminToken ? new TextEncoder().encode(deps.adminToken) : null;
  // derive runs before body validation, so a caller without the token learns nothing about the schema.
  return new Elysia({ normalize: false }).use(bearer()).derive({ as: "scoped" }, ({ bearer: token }) => {
    if (!expected) throw errors.notFound("route");
    const given = new TextEncoder().encode(token ?? "");
    const same = given.length === expected.length && timingSafeEqual(given, expected);
    if (!same) throw errors.unauthorized("The admin API needs `Authorization: Bearer <VITRIN_ADMIN_TOKEN>`.");
    return { admin: true as const };
  });
}
