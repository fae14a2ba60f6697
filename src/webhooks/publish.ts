// Where an event goes: the URL given with the thing it concerns (a video's webhook_url) or, for events about the
// account as a whole, the account-level webhook URL; and every enabled webhook endpoint of the account subscribed to
// it. Each receiver gets its own message (own id, own retries, own log).
import { eq } from "drizzle-orm";
import type { Orm } from "../db";
import { subscribers } from "./endpoints";
import { emit, type OutboxDeps } from "./outbox";
import type { MessageRow, Publish } from "./types";

/** The account-level webhook URL, if the account set one. */
async function accountUrl(deps: OutboxDeps, tx: Orm, accountId: string): Promise<string | null> {
  const { accounts } = deps.db.schema;
  const [row] = await tx.select({ url: accounts.webhookUrl }).from(accounts).where(eq(accounts.id, accountId)).limit(1);
  return row?.url ?? null;
}

/**
 * Queues an event for every receiver it has, in the caller's transaction: `url` when given (a video's own
 * webhook_url), else the account-level URL, and the subscribed endpoints. Returns the messages queued (none when
 * nobody listens).
 */
export async function publish(deps: OutboxDeps, tx: Orm, input: Publish): Promise<MessageRow[]> {
  const { accountId, event, data, videoId } = input;
  const url = input.url !== undefined ? input.url : await accountUrl(deps, tx, accountId);
  const out: MessageRow[] = [];
  if (url) out.push(await emit(deps, tx, { accountId, event, url, data, videoId }));
  for (const endpoint of await subscribers(deps, tx, accountId, event)) {
    out.push(await emit(deps, tx, { accountId, event, url: endpoint.url, data, videoId, endpointId: endpoint.id }));
  }
  return out;
}
