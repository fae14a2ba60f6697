// HTTP routes under /v1/webhook_endpoints: an account's own webhook receivers, each subscribed to some events (or
// "*"), with its own whsec_ secret shown at create and at rotation.
import { Elysia, t } from "elysia";
import { idParams, noBody, noQuery } from "../schema";
import { idempotencyHeaders, ok, operation } from "../openapi-docs";
import { accountGuard, type GuardDeps } from "../guard";
import { WEBHOOK_EVENTS, type Webhooks } from "../../webhooks";

const url = t.String({ minLength: 1, maxLength: 2048, description: "An https (or http) URL that receives the events." });
const events = t.Array(t.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length + 1,
  description: `Event names (${WEBHOOK_EVENTS.join(", ")}), or ["*"] for every event.`,
});
const description = t.String({ maxLength: 500, description: "Your own note on what the endpoint is for." });
const enabled = t.Boolean({ description: "false: nothing new is sent to it (messages already queued still are)." });

/** A webhook endpoint as the API shows it (create and rotate add `secret`, rotate `previous_expires_at`). */
export const webhookEndpointSchema = t.Object(
  {
    id: t.String(),
    object: t.Literal("webhook_endpoint"),
    url: t.String(),
    events: t.Array(t.String()),
    description: t.String(),
    enabled: t.Boolean(),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
    secret: t.Optional(t.String({ description: "The whsec_ secret: shown only at create and at rotation." })),
    previous_expires_at: t.Optional(t.String({ format: "date-time", description: "Until when the rotated-out secret still signs." })),
  },
  { description: "A webhook endpoint." },
);

const endpointList = t.Object({ data: t.Array(webhookEndpointSchema), has_more: t.Boolean() }, { description: "Webhook endpoints" });
const deletedEndpoint = t.Object({ id: t.String(), object: t.Literal("webhook_endpoint"), deleted: t.Literal(true) }, { description: "A deleted endpoint" });
const tags = ["Webhooks"];

export function webhookEndpointRoutes(guard: GuardDeps, webhooks: Webhooks, checkUrl: (url: string) => Promise<void>) {
  const endpoints = webhooks.endpoints;
  return new Elysia({ prefix: "/v1/webhook_endpoints", normalize: false })
    .use(accountGuard(guard))
    .post(
      "",
      async ({ principal, body, set }) => {
        await checkUrl(body.url);
        const out = await endpoints.create(principal.accountId, body);
        set.status = 201;
        return out;
      },
      {
        body: t.Object({ url, events, description: t.Optional(description), enabled: t.Optional(enabled) }, { additionalProperties: false }),
        parse: "json",
        headers: idempotencyHeaders,
        detail: operation({ tags, summary: "Add a webhook endpoint (its secret is in this answer only)", ok: ok(201, webhookEndpointSchema, "The endpoint, with its secret"), errors: [400, 403, 409, 422] }),
      },
    )
    .get("", ({ principal }) => endpoints.list(principal.accountId), {
      query: noQuery,
      detail: operation({ tags, summary: "The account's webhook endpoints, oldest first (16 at most)", ok: ok(200, endpointList, "The endpoints"), errors: [422] }),
    })
    .get("/:id", ({ principal, params }) => endpoints.get(principal.accountId, params.id), {
      params: idParams,
      detail: operation({ tags, summary: "One webhook endpoint", ok: ok(200, webhookEndpointSchema, "The endpoint"), errors: [404, 422] }),
    })
    .patch(
      "/:id",
      async ({ principal, params, body }) => {
        if (body.url !== undefined) await checkUrl(body.url);
        return endpoints.update(principal.accountId, params.id, body);
      },
      {
        params: idParams,
        body: t.Object(
          { url: t.Optional(url), events: t.Optional(events), description: t.Optional(description), enabled: t.Optional(enabled) },
          { additionalProperties: false, minProperties: 1 },
        ),
        parse: "json",
        detail: operation({ tags, summary: "Change an endpoint's url, events, description or enabled", ok: ok(200, webhookEndpointSchema, "The endpoint as changed"), errors: [400, 404, 422] }),
      },
    )
    .delete("/:id", ({ principal, params }) => endpoints.delete(principal.accountId, params.id), {
      params: idParams,
      detail: operation({ tags, summary: "Delete an endpoint (its waiting messages are given up on)", ok: ok(200, deletedEndpoint, "Deleted"), errors: [404, 422] }),
    })
    .post("/:id/rotate_secret", ({ principal, params }) => endpoints.rotate(principal.accountId, params.id), {
      params: idParams,
      body: noBody,
      parse: "json",
      headers: idempotencyHeaders,
      detail: operation({ tags, summary: "A new secret for the endpoint (the old one keeps signing for 24 h)", ok: ok(200, webhookEndpointSchema, "The endpoint with its new secret"), errors: [400, 404, 409, 422] }),
    });
}
