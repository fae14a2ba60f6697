// HTTP routes for /v1/tokens: an account lists, issues and revokes its own API tokens (the Studio's Developers page);
// a token's secret is shown once, when it is issued, and never listed.
import { Elysia, t } from "elysia";
import { tokenJson, type Accounts } from "../../accounts";
import { errors } from "../../kernel";
import { accountGuard, type GuardDeps } from "../guard";
import { idempotencyHeaders, ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { idParams, noQuery } from "../schema";

export const listedToken = t.Object({
  id: t.String(),
  object: t.Literal("token"),
  name: t.String(),
  hint: t.String({ description: "The token's first and last characters, to tell tokens apart; never the token." }),
  created_at: t.String({ format: "date-time" }),
  last_used_at: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description: "When the token last authenticated a request, to the minute (written at most once a minute per token); null when never used.",
  }),
});

type TokenRow = Awaited<ReturnType<Accounts["listTokens"]>>[number];

/** An account's live tokens as both lists answer them (its own, and the operator's view): revoked ones left out. */
export function liveTokensPage(rows: TokenRow[]) {
  return { data: rows.filter((r) => r.revokedAt === null).map(tokenJson), has_more: false };
}

const issuedToken = t.Object({
  id: t.String(),
  object: t.Literal("token"),
  name: t.String(),
  token: t.String({ description: "The API token, shown this once." }),
});

export function tokenRoutes(guard: GuardDeps) {
  const { accounts } = guard;
  return new Elysia({ prefix: "/v1", normalize: false })
    .use(accountGuard(guard))
    .get(
      "/tokens",
      async ({ principal }) => liveTokensPage(await accounts.listTokens(principal.accountId)),
      { query: noQuery, detail: operation({ tags: ["Tokens"], summary: "The account's live API tokens (never their secrets)", ok: ok(200, pageOf(listedToken, "Live tokens, newest first"), "The tokens"), errors: [422] }) },
    )
    .post(
      "/tokens",
      async ({ principal, body, set }) => {
        const name = body?.name ?? "";
        const token = await accounts.createToken(principal.accountId, name);
        set.status = 201;
        return { id: token.id, object: "token", name, token: token.token };
      },
      {
        body: t.Optional(t.Object({ name: t.Optional(t.String({ maxLength: 100 })) }, { additionalProperties: false })),
        parse: "json",
        headers: idempotencyHeaders,
        detail: operation({ tags: ["Tokens"], summary: "Issue another API token for this account (shown once)", ok: ok(201, issuedToken, "The new token"), errors: [400, 403, 409, 422] }),
      },
    )
    .delete(
      "/tokens/:id",
      async ({ principal, params }) => {
        if (!(await accounts.revokeToken(params.id, principal.accountId))) throw errors.notFound("token");
        return { id: params.id, object: "token", deleted: true };
      },
      { params: idParams, detail: operation({ tags: ["Tokens"], summary: "Revoke one of the account's tokens (its Studio sessions end too)", ok: ok(200, s.deletedToken, "Revoked"), errors: [404] }) },
    );
}
