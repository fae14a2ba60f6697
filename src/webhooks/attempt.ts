// One delivery attempt: a message signed with the account's secrets and POSTed once, read into an outcome (delivered,
// retrying at the next point of its schedule, or failed for good). Nothing is written here.
import type { Db } from "../db";
import type { Clock, Logger } from "../kernel";
import { OutboundError, outboundFetch } from "../net";
import { MAX_ATTEMPTS, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelay } from "./retry";
import { signingSecrets } from "./secrets";
import { signatureHeader } from "./sign";
import type { AttemptFields, AttemptStatus, DueMessage, Outcome, PageKeys, WebhookDeps } from "./types";

const RESPONSE_SNIPPET_BYTES = 2048;
const utf8 = new TextDecoder();

export type AttemptDeps = { db: Db; clock: Clock; logger: Logger; outbound: WebhookDeps["outbound"]; random: () => number };

/**
 * The headers of one attempt: the same webhook-id every time, a fresh timestamp, a signature per active secret (the
 * webhook endpoint's own when the message goes to one). Null when that endpoint has been deleted.
 */
async function attemptHeaders(deps: AttemptDeps, message: DueMessage, keys: PageKeys, now: number): Promise<Record<string, string> | null> {
  let secrets: string[];
  if (message.endpointId) {
    const own = keys.endpoints.get(message.endpointId);
    if (!own) return null;
    secrets = own.filter((k) => k.expiresAt === null || k.expiresAt > now).map((k) => k.secret);
  } else {
    secrets = await signingSecrets(deps, message.accountId, keys.account, now);
  }
  const timestamp = Math.floor(now / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "vitrin-webhooks/1",
    "webhook-id": message.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(secrets, message.id, timestamp, message.payload),
  };
}

/**
 * Sends one message once and says what became of it (nothing is written here). Throws only when `signal` aborted
 * the attempt, whose outcome then does not count.
 */
export async function attempt(deps: AttemptDeps, message: DueMessage, keys: PageKeys, signal: AbortSignal): Promise<Outcome> {
  const { clock, logger } = deps;
  const number = message.attemptCount + 1;
  const headers = await attemptHeaders(deps, message, keys, clock.now());
  // Where this attempt stands in the current retry schedule (a redelivery starts a new one).
  const position = number - message.retryBase;
  const last = position >= MAX_ATTEMPTS;
  const scheduled = last ? null : retryDelay(position, deps.random);
  const outcome = (fields: AttemptFields, status: AttemptStatus): Outcome => ({ message, attempt: number, fields, status, at: clock.now() });
  if (!headers) return outcome({ error: "The webhook endpoint was deleted." }, "failed");
  const started = performance.now();
  let res;
  try {
    res = await outboundFetch(message.url, {
      method: "POST",
      headers,
      body: message.payload,
      allowPrivateNetworks: deps.outbound.allowPrivateNetworks,
      allowHosts: deps.outbound.allowHosts,
      resolve: deps.outbound.resolve,
      timeoutMs: deps.outbound.timeoutMs,
      maxRedirects: 0,
      maxBytes: RESPONSE_SNIPPET_BYTES,
      overflow: "truncate",
      signal,
    });
  } catch (e) {
    if (signal.aborted) throw e;
    const latencyMs = Math.round(performance.now() - started);
    const blocked = e instanceof OutboundError && ["blocked_address", "scheme", "invalid_url"].includes(e.code);
    const error = e instanceof OutboundError ? `${e.code}: ${e.message}` : (e as Error).message;
    if (blocked || last) {
      logger.warn("webhook delivery gave up", { message_id: message.id, attempt: number, error });
      return outcome({ latencyMs, error }, "failed");
    }
    return outcome({ latencyMs, error, nextAttemptAt: clock.now() + scheduled! }, "retrying");
  }
  const latencyMs = Math.round(performance.now() - started);
  const snippet = utf8.decode(res.body);
  const status = res.status;
  if (status >= 200 && status < 300) return outcome({ statusCode: status, latencyMs, responseSnippet: snippet }, "delivered");
  // 410 Gone: the receiver says this endpoint is gone for good.
  if (status === 410 || last) {
    logger.warn("webhook delivery gave up", { message_id: message.id, attempt: number, status });
    return outcome({ statusCode: status, latencyMs, responseSnippet: snippet, error: `HTTP ${status}` }, "failed");
  }
  let delay = scheduled!;
  if (status === 429 || status >= 500) {
    const asked = parseRetryAfter(res.headers.get("retry-after"), clock.now());
    if (asked !== null) delay = Math.max(delay, Math.min(asked, MAX_RETRY_AFTER_MS));
  }
  return outcome({ statusCode: status, latencyMs, responseSnippet: snippet, error: `HTTP ${status}`, nextAttemptAt: clock.now() + delay }, "retrying");
}
