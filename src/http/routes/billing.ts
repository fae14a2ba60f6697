// HTTP routes for balance, top-ups and transactions, the payment providers' webhook and the payer-facing pages,
// and the operator's confirmation of manual top-ups.
import { Elysia, t } from "elysia";
import { idempotencyHeaders, ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { accountGuard, adminGuard, type AdminGuardDeps, type GuardDeps } from "../guard";
import { errors } from "../../kernel";
import { DOCUMENTED_AS, idParams, jsonInteger, noBody, noQuery, pageQuery } from "../schema";
import { PaymentSignatureError, type PaymentPlugin } from "../../plugins";
import { MIN_TOP_UP, TOP_UP_STATUSES, topUpJson, type Billing } from "../../billing";
import { cancelPage, manualPaymentPage, notFoundPage, pageLanguage, returnPage } from "./billing-pages";


export function balanceRoutes(guard: GuardDeps, billing: Billing) {
  return new Elysia({ prefix: "/v1/balance", normalize: false })
    .use(accountGuard(guard))
    .get("", ({ principal }) => billing.balance(principal.accountId), {
      detail: operation({ tags: ["Balance"], summary: "Credits, premium flag and language of the account", ok: ok(200, s.balance, "The balance") }),
    })
    .get("/top-up-options", () => billing.topUpOptions(), {
      query: noQuery,
      detail: operation({ tags: ["Balance"], summary: "What a top-up may be: least and largest amount, currencies and the credits each buys", ok: ok(200, s.topUpOptions, "The top-up options") }),
    })
    .post(
      "/top-up",
      async ({ principal, body, set }) => {
        const out = await billing.startTopUp(principal.accountId, body);
        set.status = 201;
        return out;
      },
      {
        body: t.Object(
          {
            amount: jsonInteger({
              minimum: MIN_TOP_UP,
              maximum: billing.topUpMax,
              description: `Minor currency units; at least 1000 (10.00), at most ${billing.topUpMax} (VITRIN_TOP_UP_MAX).`,
            }),
            currency: t.String({ pattern: "^[a-z]{3}$", description: "Lowercase currency code, e.g. usd." }),
          },
          { additionalProperties: false },
        ),
        parse: "json",
        headers: idempotencyHeaders, detail: operation({ tags: ["Balance"], summary: "Start a top-up; returns the payment_url where it is paid", ok: ok(201, s.topUp, "The top-up with its payment_url"), errors: [400, 409, 422] }),
      },
    )
    .get("/top-ups", ({ principal, query }) => billing.topUps(principal.accountId, query), {
      query: t.Object(
        {
          ...pageQuery.properties,
          status: t.Optional(
            t.String({ maxLength: 20, description: "Only top-ups in this status: pending, paid, failed or expired.", [DOCUMENTED_AS]: { type: "string", enum: [...TOP_UP_STATUSES] } }),
          ),
        },
        { additionalProperties: false },
      ),
      detail: operation({ tags: ["Balance"], summary: "The account's top-ups, newest first (pending ones: those waiting for their payment)", ok: ok(200, pageOf(s.topUp, "Top-ups, newest first"), "Top-ups, newest first"), errors: [422] }),
    })
    .get("/top-ups/:id", ({ principal, params }) => billing.getTopUp(principal.accountId, params.id), {
      params: idParams,
      detail: operation({ tags: ["Balance"], summary: "A top-up and its status", ok: ok(200, s.topUp, "The top-up"), errors: [404] }),
    })
    .get("/transactions", ({ principal, query }) => billing.transactions(principal.accountId, query), {
      query: pageQuery,
      detail: operation({ tags: ["Balance"], summary: "Balance transactions, newest first", ok: ok(200, pageOf(s.transaction, "Transactions, newest first"), "Transactions, newest first"), errors: [422] }),
    });
}

export function paymentRoutes(admin: AdminGuardDeps, billing: Billing, payment: PaymentPlugin) {
  const provider = t.Object({ provider: t.String({ maxLength: 50 }) });
  const topUpQuery = t.Object({ top_up: t.String({ maxLength: 100 }) }, { additionalProperties: true });
  return new Elysia({ normalize: false })
    .post(
      "/v1/payments/:provider/webhook",
      async ({ params, body, request }) => {
        if (params.provider !== payment.name || !payment.parseWebhook) throw errors.notFound("payment provider");
        let notice;
        try {
          notice = await payment.parseWebhook(typeof body === "string" ? body : "", request.headers);
        } catch (e) {
          if (e instanceof PaymentSignatureError) throw errors.badRequest(`Webhook signature check failed: ${e.message}`);
          throw e;
        }
        if (notice) await billing.handleNotice(notice);
        return { received: true };
      },
      {
        params: provider,
        detail: operation({
          tags: ["Payments"],
          summary: "Signed notifications from the payment provider",
          auth: "none",
          ok: ok(200, t.Object({ received: t.Literal(true) }), "Received"),
          errors: [400, 404, 500, 503],
        }),
      },
    )
    .get(
      "/pay/manual/:id",
      async ({ params, request }) => {
        const row = await billing.loadTopUp(params.id);
        const lang = pageLanguage(request);
        // The instructions are the manual plugin's while it is the one configured (a top-up left from before keeps its page).
        const instructions = payment.name === "manual" ? (payment.payerInstructions ?? null) : null;
        return row && row.provider === "manual" ? manualPaymentPage(row, lang, instructions) : notFoundPage(lang);
      },
      { params: idParams, detail: { hide: true } },
    )
    .get(
      "/pay/:provider/return",
      async ({ query, request }) => {
        const row = await billing.checkReturn(query.top_up);
        const lang = pageLanguage(request);
        return row ? returnPage(row, lang) : notFoundPage(lang);
      },
      { params: provider, query: topUpQuery, detail: { hide: true } },
    )
    .get(
      "/pay/:provider/cancel",
      async ({ query, request }) => {
        const row = await billing.loadTopUp(query.top_up);
        const lang = pageLanguage(request);
        return row ? cancelPage(row, lang) : notFoundPage(lang);
      },
      { params: provider, query: topUpQuery, detail: { hide: true } },
    )
    .use(
      new Elysia({ prefix: "/v1/admin", normalize: false })
        .use(adminGuard(admin))
        .post("/top-ups/:id/complete", ({ params }) => billing.completeManually(params.id), {
          params: idParams,
          body: noBody,
          parse: "json",
          detail: operation({ tags: ["Admin"], summary: "Mark a manual top-up paid (books its credits exactly once)", ok: ok(200, s.completedTopUp, "The top-up, paid"), errors: [400, 404, 409], auth: "admin" }),
        }),
    );
}

export { topUpJson };
