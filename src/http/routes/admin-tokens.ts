// GET /v1/admin/accounts/:id/tokens: an account's live API tokens for the operator (the Studio's account page lists
// them to revoke one by a click). Revoked tokens are left out, as in /v1/tokens; a token's secret is never listed.
import { Elysia } from "elysia";
import type { Accounts } from "../../accounts";
import { errors } from "../../kernel";
import { adminGuard, type AdminGuardDeps } from "../guard";
import { ok, operation } from "../openapi-docs";
import { pageOf } from "../openapi-schemas";
import { idParams, noQuery } from "../schema";
import { listedToken, liveTokensPage } from "./tokens";

export function adminTokenRoutes(admin: AdminGuardDeps, accounts: Accounts) {
  return new Elysia({ prefix: "/v1/admin", normalize: false }).use(adminGuard(admin)).get(
    "/accounts/:id/tokens",
    async ({ params }) => {
      // An unknown account is a 404 rather than an empty list, so a mistyped id is not mistaken for "no tokens".
      if (!(await accounts.get(params.id))) throw errors.notFound("account");
      return liveTokensPage(await accounts.listTokens(params.id));
    },
    {
      params: idParams,
      query: noQuery,
      detail: operation({ tags: ["Admin"], summary: "An account's live API tokens (never their secrets; revoked ones left out)", ok: ok(200, pageOf(listedToken, "Live tokens, newest first"), "The tokens"), errors: [404, 422], auth: "admin" }),
    },
  );
}
