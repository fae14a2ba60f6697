// HTTP routes under /v1/webhooks: the signing secret and its rotation, delivery logs, redelivery, and a test ping.
import { Elysia, t } from "elysia";
import { idempotencyHeaders, ok, operation } from "../openapi-docs";
import * as s from "../openapi-schemas";
import { pageOf } from "../openapi-schemas";
import { idParams, noBody, pageQuery } from "../schema";
import { accountGuard, type GuardDeps } from "../guard";
import type { Webhooks } from "../../webhooks";
import type { Accounts } from "../../accounts";


export function webhookRoutes(guard: GuardDeps, webhooks: Webhooks, accounts: Accounts, checkUrl: (url: string) => Promise<void>) {
  return new Elysia({ prefix: "/v1/webhooks", normalize: false })
    .use(accountGuard(guard))
    .get("/secret", async ({ principal }) => ({ object: "webhook_secret" as const, secret: await webhooks.secret(principal.accountId) }), {
      detail: operation({ tags: ["Webhooks"], summary: "The whsec_ secret that signs this account's webhooks", ok: ok(200, s.webhookSecret, "The secret") }),
    })
    .post("/secret/rotate", ({ principal }) => webhooks.rotate(principal.accountId), {
      body: noBody,
      parse: "json",
      headers: idempotencyHeaders, detail: operation({ tags: ["Webhooks"], summary: "Rotate the secret (the old one keeps signing for 24 h)", ok: ok(200, s.rotatedSecret, "The new secret and when the old one stops signing"), errors: [400, 422] }),
    })
    .get(
      "/endpoint",
      async ({ principal }) => ({ object: "webhook_url", url: (await accounts.get(principal.accountId))?.webhookUrl ?? null }),
      { detail: operation({ tags: ["Webhooks"], summary: "The account-level webhook URL (receives the account's events: product.dekupe.*, balance.*)", ok: ok(200, s.webhookEndpoint, "The endpoint") }) },
    )
    .put(
      "/endpoint",
      async ({ principal, body }) => {
        if (body.url !== null) await checkUrl(body.url);
        const row = await accounts.update(principal.accountId, { webhookUrl: body.url });
        return { object: "webhook_url", url: row.webhookUrl };
      },
      {
        body: t.Object({ url: t.Union([t.String({ minLength: 1, maxLength: 2048 }), t.Null()]) }, { additionalProperties: false }),
        parse: "json",
        detail: operation({ tags: ["Webhooks"], summary: "Set (or clear with null) the account-level webhook URL", ok: ok(200, s.webhookEndpoint, "The endpoint as set"), errors: [400, 422] }),
      },
    )
    .get(
      "/deliveries",
      ({ principal, query }) => webhooks.list(principal.accountId, query),
      {
        query: t.Composite([pageQuery, t.Object({ video_id: t.Optional(t.String({ minLength: 1, maxLength: 100 })) })], {
          additionalProperties: false,
        }),
        detail: operation({ tags: ["Webhooks"], summary: "Webhook messages with every delivery attempt, newest first", ok: ok(200, pageOf(s.webhookMessage, "Messages, newest first"), "Messages, newest first"), errors: [422] }),
      },
    )
    .get("/deliveries/:id", ({ principal, params }) => webhooks.get(principal.accountId, params.id), {
      params: idParams,
      detail: operation({ tags: ["Webhooks"], summary: "One webhook message and its attempts", ok: ok(200, s.webhookMessage, "The message"), errors: [404] }),
    })
    .post(
      "/deliveries/:id/redeliver",
      async ({ principal, params, set }) => {
        const out = await webhooks.redeliver(principal.accountId, params.id);
        set.status = 202;
        return out;
      },
      { params: idParams, body: noBody, parse: "json", headers: idempotencyHeaders, detail: operation({ tags: ["Webhooks"], summary: "Send a message again (same webhook-id)", ok: ok(202, s.webhookMessage, "Queued again"), errors: [400, 404, 409, 422] }) },
    )
    .post(
      "/test",
      async ({ principal, body, set }) => {
        await checkUrl(body.url);
        const out = await webhooks.ping(principal.accountId, body.url);
        set.status = 202;
        return out;
      },
      {
        body: t.Object({ url: t.String({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false }),
        parse: "json",
        headers: idempotencyHeaders, detail: operation({ tags: ["Webhooks"], summary: "Send a signed `ping` event to a URL", ok: ok(202, s.webhookMessage, "The ping message, queued"), errors: [400, 422] }),
      },
    );
}
