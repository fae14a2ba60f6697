// POST /v1/admin/accounts/:id/login_links: the operator's one-time Studio sign-in URL for an account (15 minutes,
// usable once; src/accounts/login-links.ts). Guarded by VITRIN_ADMIN_TOKEN like the rest of /v1/admin.
import { Elysia, t } from "elysia";
import { loginLinkJson } from "../../accounts";
import { adminGuard, type AdminGuardDeps } from "../guard";
import { ADMIN_IDEMPOTENCY_SCOPE, reserveIdempotencyKey, storeIdempotentAnswer, type IdempotencyDeps } from "../idempotency-hooks";
import { idempotencyHeaders, ok, operation } from "../openapi-docs";
import { idParams } from "../schema";

const loginLink = t.Object({
  object: t.Literal("login_link"),
  url: t.String({ description: "Opens the Studio signed in as the account: once, within 15 minutes." }),
  expires_at: t.String({ format: "date-time" }),
});

export function loginLinkRoutes(admin: AdminGuardDeps & IdempotencyDeps, publicUrl: string) {
  return new Elysia({ prefix: "/v1/admin", normalize: false })
    .use(adminGuard(admin))
    // A retried request with the same Idempotency-Key gets the same link back (in the operator's key scope).
    .onBeforeHandle(({ request, body, path }) => reserveIdempotencyKey(admin, ADMIN_IDEMPOTENCY_SCOPE, { request, body, path }))
    .onAfterHandle(({ request, responseValue, set }) => storeIdempotentAnswer(admin, { request, responseValue, set }))
    .post(
      "/accounts/:id/login_links",
      async ({ params, set }) => {
        const link = await admin.sessions.createLoginLink(params.id);
        set.status = 201;
        return loginLinkJson(publicUrl, link);
      },
      {
        params: idParams,
        body: t.Optional(t.Object({}, { additionalProperties: false })),
        parse: "json",
        headers: idempotencyHeaders,
        detail: operation({ tags: ["Admin"], summary: "A one-time Studio login link for the account (15 minutes, usable once)", ok: ok(201, loginLink, "The link"), errors: [400, 404, 409, 422], auth: "admin" }),
      },
    );
}
