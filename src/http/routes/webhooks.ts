// HTTP routes under /v1/webhooks: the signing secret and its rotation, delivery logs, redelivery, and a test ping.
import { Elysia, t } from "elysia";
import { idParams, noBody, pageQuery } from "../schema";
import { accountGuard, type GuardDeps } from "../guard";
import type { Webhooks } from "../../webhooks";
import type { Accounts } from "../../accounts";


export function webhookRoutes(guard: GuardDeps, webhooks: Webhooks, accounts: Accounts, checkUrl: (url: string) => Promise<void>) {
  return new Elysia({ prefix: "/v1/webhooks", normalize: false })
    .use(accountGuard(guard))
    .get("/secret", async ({ principal }) => ({ secret: await webhooks.secret(principal.accountId) }), {
      detail: { tags: ["Webhooks"], summary: "The whsec_ secret that signs this account's webhooks" },
    })
    .post("/secret/rotate", ({ principal }) => webhooks.rotate(principal.accountId), {
      body: noBody,
      parse: "json",
      detail: { tags: ["Webhooks"], summary: "Rotate the secret (the old one keeps signing for 24 h)" },
    })
    .get(
      "/endpoint",
      async ({ principal }) => ({ object: "webhook_endpoint", url: (await accounts.get(principal.accountId))?.webhookUrl ?? null }),
      { detail: { tags: ["Webhooks"], summary: "The account-level webhook URL (receives balance.low)" } },
    )
    .put(
      "/endpoint",
      async ({ principal, body }) => {
        if (body.url !== null) await checkUrl(body.url);
        const row = await accounts.update(principal.accountId, { webhookUrl: body.url });
        return { object: "webhook_endpoint", url: row.webhookUrl };
      },
      {
        body: t.Object({ url: t.Union([t.String({ minLength: 1, maxLength: 2048 }), t.Null()]) }, { additionalProperties: false }),
        parse: "json",
        detail: { tags: ["Webhooks"], summary: "Set (or clear with null) the account-level webhook URL" },
      },
    )
    .get(
      "/deliveries",
      ({ principal, query }) => webhooks.list(principal.accountId, query),
      {
        query: t.Composite([pageQuery, t.Object({ video_id: t.Optional(t.String({ minLength: 1, maxLength: 100 })) })], {
          additionalProperties: false,
        }),
        detail: { tags: ["Webhooks"], summary: "Webhook messages with every delivery attempt, newest first" },
      },
    )
    .get("/deliveries/:id", ({ principal, params }) => webhooks.get(principal.accountId, params.id), {
      params: idParams,
      detail: { tags: ["Webhooks"], summary: "One webhook message and its attempts" },
    })
    .post(
      "/deliveries/:id/redeliver",
      async ({ principal, params, set }) => {
        const out = await webhooks.redeliver(principal.accountId, params.id);
        set.status = 202;
        return out;
      },
      { params: idParams, body: noBody, parse: "json", detail: { tags: ["Webhooks"], summary: "Send a message again (same webhook-id)" } },
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
        detail: { tags: ["Webhooks"], summary: "Send a signed `ping` event to a URL" },
      },
    );
}
