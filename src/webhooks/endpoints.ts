// An account's webhook endpoints: receivers of their own, each subscribed to some events (or all), with its own
// `whsec_` secret (shown once, at create and at rotation) that signs what is sent to it.
import { and, asc, count, eq, inArray, isNotNull } from "drizzle-orm";
import type { Db, Orm } from "../db";
import { errors, iso, newId, type Clock } from "../kernel";
import { ROTATION_OVERLAP_MS } from "./secrets";
import { newSecret } from "./sign";
import type { EndpointRow, Keys } from "./types";

/** Every event an endpoint can subscribe to (`*` is all of them, including ones added later). */
export const WEBHOOK_EVENTS = [
  "video.completed",
  "video.failed",
  "product.dekupe.completed",
  "product.dekupe.failed",
  "balance.topped_up",
  "balance.low",
] as const;

/** Endpoints per account, as Stripe allows: enough for every receiver an integration has. */
export const MAX_ENDPOINTS = 16;

export type EndpointDeps = { db: Db; clock: Clock };
export type NewEndpoint = { url: string; events: string[]; description?: string; enabled?: boolean };
export type EndpointPatch = Partial<NewEndpoint>;

/** The subscription, checked: known event names without repeats, or `["*"]` alone. */
function checkEvents(events: string[]): string[] {
  if (events.length === 0) throw errors.invalidField("events", 'Name at least one event, or ["*"] for all.');
  if (events.includes("*") && events.length > 1) throw errors.invalidField("events", '"*" already means every event; send it alone.');
  const known = new Set<string>(["*", ...WEBHOOK_EVENTS]);
  const unknown = events.filter((e) => !known.has(e));
  if (unknown.length > 0) throw errors.invalidField("events", `Unknown event ${unknown.map((e) => `"${e}"`).join(", ")}; known: ${WEBHOOK_EVENTS.join(", ")}, or ["*"] alone for every event.`);
  return [...new Set(events)];
}

export function endpointJson(row: EndpointRow) {
  return {
    id: row.id,
    object: "webhook_endpoint" as const,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    enabled: row.enabled,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

async function load(deps: EndpointDeps, orm: Orm, accountId: string, id: string): Promise<EndpointRow> {
  const { webhookEndpoints: e } = deps.db.schema;
  const [row] = await orm.select().from(e).where(and(eq(e.id, id), eq(e.accountId, accountId))).limit(1);
  if (!row) throw errors.notFound("webhook endpoint");
  return row;
}

/** A new endpoint; its secret is in this answer and in no later read (rotate to get a new one). */
export async function createEndpoint(deps: EndpointDeps, accountId: string, input: NewEndpoint) {
  const { webhookEndpoints: e } = deps.db.schema;
  const events = checkEvents(input.events);
  const now = deps.clock.now();
  const secret = newSecret();
  const row = await deps.db.tx(async (tx) => {
    const [{ n }] = await tx.select({ n: count() }).from(e).where(eq(e.accountId, accountId));
    if (Number(n) >= MAX_ENDPOINTS) throw errors.forbidden(`An account has at most ${MAX_ENDPOINTS} webhook endpoints; delete one first.`);
    const values = {
      id: newId("we"),
      accountId,
      url: input.url,
      events: JSON.stringify(events),
      description: input.description ?? "",
      enabled: input.enabled ?? true,
      secret,
      createdAt: now,
      updatedAt: now,
    };
    const [inserted] = await tx.insert(e).values(values).returning();
    return inserted;
  });
  return { ...endpointJson(row), secret };
}

export async function listEndpoints(deps: EndpointDeps, accountId: string) {
  const { webhookEndpoints: e } = deps.db.schema;
  const rows = await deps.db.read.select().from(e).where(eq(e.accountId, accountId)).orderBy(asc(e.createdAt), asc(e.id));
  // At most MAX_ENDPOINTS, so one page always holds them all.
  return { data: rows.map(endpointJson), has_more: false };
}

export async function getEndpoint(deps: EndpointDeps, accountId: string, id: string) {
  return endpointJson(await load(deps, deps.db.read, accountId, id));
}

export async function updateEndpoint(deps: EndpointDeps, accountId: string, id: string, patch: EndpointPatch) {
  const { webhookEndpoints: e } = deps.db.schema;
  const set: Partial<EndpointRow> = { updatedAt: deps.clock.now() };
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.events !== undefined) set.events = JSON.stringify(checkEvents(patch.events));
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.enabled !== undefined) set.enabled = patch.enabled;
  return deps.db.tx(async (tx) => {
    await load(deps, tx, accountId, id);
    const [row] = await tx.update(e).set(set).where(eq(e.id, id)).returning();
    return endpointJson(row);
  });
}

/** Deletes an endpoint; its messages still waiting are given up on (their log stays). */
export async function deleteEndpoint(deps: EndpointDeps, accountId: string, id: string) {
  const { webhookEndpoints: e, webhookMessages: m } = deps.db.schema;
  const now = deps.clock.now();
  await deps.db.tx(async (tx) => {
    await load(deps, tx, accountId, id);
    await tx
      .update(m)
      .set({ status: "failed", nextAttemptAt: null, updatedAt: now })
      .where(and(eq(m.accountId, accountId), eq(m.endpointId, id), isNotNull(m.nextAttemptAt)));
    await tx.delete(e).where(eq(e.id, id));
  });
  return { id, object: "webhook_endpoint" as const, deleted: true as const };
}

/** A new secret for the endpoint; the old one keeps signing beside it for ROTATION_OVERLAP_MS. */
export async function rotateEndpointSecret(deps: EndpointDeps, accountId: string, id: string) {
  const { webhookEndpoints: e } = deps.db.schema;
  const now = deps.clock.now();
  const secret = newSecret();
  const row = await deps.db.tx(async (tx) => {
    const current = await load(deps, tx, accountId, id);
    const set = { secret, previousSecret: current.secret, previousExpiresAt: now + ROTATION_OVERLAP_MS, updatedAt: now };
    const [updated] = await tx.update(e).set(set).where(eq(e.id, id)).returning();
    return updated;
  });
  return { ...endpointJson(row), secret, previous_expires_at: iso(now + ROTATION_OVERLAP_MS)! };
}

/** The account's enabled endpoints subscribed to `event`, read in the caller's transaction. */
export async function subscribers(deps: EndpointDeps, tx: Orm, accountId: string, event: string): Promise<EndpointRow[]> {
  const { webhookEndpoints: e } = deps.db.schema;
  const rows = await tx.select().from(e).where(and(eq(e.accountId, accountId), eq(e.enabled, true)));
  return rows.filter((r) => {
    const events = JSON.parse(r.events) as string[];
    return events.includes("*") || events.includes(event);
  });
}

/** The keys of each endpoint named (its secret, and the rotated-out one with its expiry); a deleted one is left out. */
export async function endpointKeys(deps: EndpointDeps, ids: string[]): Promise<Map<string, Keys>> {
  const { webhookEndpoints: e } = deps.db.schema;
  const out = new Map<string, Keys>();
  if (ids.length === 0) return out;
  const rows = await deps.db.read
    .select({ id: e.id, secret: e.secret, previous: e.previousSecret, until: e.previousExpiresAt })
    .from(e)
    .where(inArray(e.id, [...new Set(ids)]));
  for (const r of rows) {
    const keys: Keys = [{ secret: r.secret, expiresAt: null }];
    if (r.previous && r.until !== null) keys.push({ secret: r.previous, expiresAt: r.until });
    out.set(r.id, keys);
  }
  return out;
}
