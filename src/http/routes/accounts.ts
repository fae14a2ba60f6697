// The operator's admin API under /v1/admin (accounts, tokens, credit grants), guarded by VITRIN_ADMIN_TOKEN.
import { Elysia, t } from "elysia";
import { idempotencyHeaders, ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { adminGuard, type AdminGuardDeps } from "../guard";
import { errors } from "../../kernel";
import { ADMIN_IDEMPOTENCY_SCOPE, reserveIdempotencyKey, storeIdempotentAnswer, type IdempotencyDeps } from "../idempotency-hooks";
import { idParams, jsonInteger, pageQuery } from "../schema";
import { accountJson, type Accounts } from "../../accounts";

const createBody = t.Object(
  {
    name: t.Optional(t.String({ maxLength: 200 })),
    credits: t.Optional(jsonInteger({ minimum: 0 })),
    language: t.Optional(t.String({ minLength: 2, maxLength: 35 })),
    is_premium: t.Optional(t.Boolean()),
  },
  { additionalProperties: false },
);

const updateBody = t.Object(
  {
    name: t.Optional(t.String({ maxLength: 200 })),
    language: t.Optional(t.String({ minLength: 2, maxLength: 35 })),
    is_premium: t.Optional(t.Boolean()),
    webhook_url: t.Optional(
      t.Union([t.String({ minLength: 1, maxLength: 2048 }), t.Null()], {
        description: "The account-level webhook URL (http or https, vetted as PUT /v1/webhooks/endpoint vets it); null clears it.",
        error: "must be an http or https URL, or null to clear it",
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

const grantBody = t.Object(
  { amount: jsonInteger({ description: "Credits to add (negative: a correction)." }), description: t.Optional(t.String({ maxLength: 500 })) },
  { additionalProperties: false },
);

/** A page of accounts, optionally only those whose name or id holds `q`. */
const accountsQuery = t.Object(
  { ...pageQuery.properties, q: t.Optional(t.String({ maxLength: 200, description: "Only accounts whose name or id contains this (any case)." })) },
  { additionalProperties: false },
);

/** The scheme-and-syntax half of the outbound rules, for when no address rules were handed in. */
async function checkUrlForm(url: string, field: string): Promise<void> {
  const parsed = URL.parse(url);
  if (!parsed) throw errors.invalidField(field, "is not a valid URL");
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw errors.invalidField(field, "must be an http or https URL");
}

/** A page of accounts as the API shows them. */
async function accountsPage(accounts: Accounts, query: Parameters<Accounts["page"]>[0]) {
  const page = await accounts.page(query);
  return { data: page.data.map(accountJson), has_more: page.has_more };
}

/** The outbound rules a webhook URL is held to (scheme, private addresses, VITRIN_WEBHOOK_ALLOW_HOSTS); 422 naming `field`. */
export type CheckUrl = (url: string, field: string) => Promise<void>;

/**
 * `checkUrl` vets `webhook_url` as PUT /v1/webhooks/endpoint vets its `url`: a URL no event could be delivered to is
 * refused now rather than lost later. Without it (a tool that builds these routes alone) only the URL's form is checked.
 */
export function adminRoutes(admin: AdminGuardDeps & IdempotencyDeps, accounts: Accounts, checkUrl: CheckUrl = checkUrlForm) {
  return new Elysia({ prefix: "/v1/admin", normalize: false })
    .use(adminGuard(admin))
    // A retried grant must credit once: the operator's keys share one scope, apart from every account's.
    // Hooks name the fields they use: one taking the whole context makes Elysia parse cookies on every route.
    .onBeforeHandle(({ request, body, path }) => reserveIdempotencyKey(admin, ADMIN_IDEMPOTENCY_SCOPE, { request, body, path }))
    .onAfterHandle(({ request, responseValue, set }) => storeIdempotentAnswer(admin, { request, responseValue, set }))
    .post(
      "/accounts",
      async ({ body, set }) => {
        const { account, token } = await accounts.create({
          name: body.name,
          credits: body.credits,
          language: body.language,
          isPremium: body.is_premium,
        });
        set.status = 201;
        return { account: accountJson(account), token: token.token, token_id: token.id };
      },
      {
        body: createBody,
        parse: "json",
        headers: idempotencyHeaders,
        detail: operation({ tags: ["Admin"], summary: "Create an account and its first token (shown once)", ok: ok(201, s.accountCreated, "The account and its first token"), errors: [400, 404, 409, 422], auth: "admin" }),
      },
    )
    .get(
      "/accounts",
      ({ query }) => accountsPage(accounts, query),
      {
        query: accountsQuery,
        detail: operation({ tags: ["Admin"], summary: "List accounts", ok: ok(200, pageOf(s.account, "Accounts, newest first"), "A page of accounts"), errors: [404, 422], auth: "admin" }),
      },
    )
    .get(
      "/accounts/:id",
      async ({ params }) => {
        const row = await accounts.get(params.id);
        if (!row) throw errors.notFound("account");
        return accountJson(row);
      },
      { params: idParams, detail: operation({ tags: ["Admin"], summary: "Retrieve an account", ok: ok(200, s.account, "The account"), errors: [404], auth: "admin" }) },
    )
    .patch(
      "/accounts/:id",
      async ({ params, body }) => {
        if (typeof body.webhook_url === "string") await checkUrl(body.webhook_url, "webhook_url");
        const row = await accounts.update(params.id, { name: body.name, language: body.language, isPremium: body.is_premium, webhookUrl: body.webhook_url });
        return accountJson(row);
      },
      {
        params: idParams,
        body: updateBody,
        parse: "json",
        detail: operation({ tags: ["Admin"], summary: "Change an account's name, language, premium flag or webhook URL", ok: ok(200, s.account, "The account as changed"), errors: [400, 404, 422], auth: "admin" }),
      },
    )
    .post(
      "/accounts/:id/tokens",
      async ({ params, body, set }) => {
        const token = await accounts.createToken(params.id, body?.name ?? "");
        set.status = 201;
        return { id: token.id, token: token.token };
      },
      {
        params: idParams,
        body: t.Optional(t.Object({ name: t.Optional(t.String({ maxLength: 100 })) }, { additionalProperties: false })),
        parse: "json",
        headers: idempotencyHeaders,
        detail: operation({ tags: ["Admin"], summary: "Issue another token for an account (shown once)", ok: ok(201, s.token, "The new token"), errors: [400, 403, 404, 409, 422], auth: "admin" }),
      },
    )
    .delete(
      "/tokens/:id",
      async ({ params }) => {
        if (!(await accounts.revokeToken(params.id))) throw errors.notFound("token");
        return { id: params.id, object: "token", deleted: true };
      },
      { params: idParams, detail: operation({ tags: ["Admin"], summary: "Revoke a token", ok: ok(200, s.deletedToken, "Revoked"), errors: [404], auth: "admin" }) },
    )
    .post(
      "/accounts/:id/credits",
      async ({ params, body, set }) => {
        const txn = await accounts.grant(params.id, body.amount, body.description);
        set.status = 201;
        return txn;
      },
      {
        params: idParams,
        body: grantBody,
        parse: "json",
        headers: idempotencyHeaders,
        detail: operation({ tags: ["Admin"], summary: "Grant credits (a `grant` transaction)", ok: ok(201, s.transaction, "The grant transaction"), errors: [400, 404, 409, 422], auth: "admin" }),
      },
    );
}
