// The shapes the webhook modules share: what createWebhooks is given, the rows it keeps, and what a delivery carries.
import type { Db, schema } from "../db";
import type { JobEngine } from "../jobs";
import type { Clock, Logger } from "../kernel";

export type WebhookDeps = {
  db: Db;
  clock: Clock;
  logger: Logger;
  jobs: JobEngine;
  outbound: { allowPrivateNetworks: boolean; allowHosts?: readonly string[]; timeoutMs: number; resolve?: (host: string) => Promise<string[]> };
  random?: () => number;
  /** Told each attempt's outcome once it is recorded (metrics). */
  observeAttempt?: (outcome: AttemptStatus) => void;
};

export type MessageRow = typeof schema.webhookMessages.$inferSelect;
export type EndpointRow = typeof schema.webhookEndpoints.$inferSelect;
export type AttemptRow = typeof schema.webhookAttempts.$inferSelect;

export type Emit = {
  accountId: string;
  event: string;
  url: string;
  data: Record<string, unknown>;
  videoId?: string | null;
  /** The webhook endpoint `url` belongs to: its messages are signed with that endpoint's secret. */
  endpointId?: string | null;
};

/**
 * An event to send to whoever listens: `url` is the receiver named with the thing it concerns (a video's webhook_url,
 * null when none was given); left out, the event concerns the account and goes to its account-level URL.
 */
export type Publish = {
  accountId: string;
  event: string;
  data: Record<string, unknown>;
  url?: string | null;
  videoId?: string | null;
};

/** What a delivery reads of a due message. */
export type DueMessage = Pick<MessageRow, "id" | "accountId" | "endpointId" | "url" | "payload" | "attemptCount" | "retryBase" | "updatedAt" | "nextAttemptAt">;

/** An account's secrets that have not expired, newest first, as a delivery job holds them for a page of messages. */
export type Keys = { secret: string; expiresAt: number | null }[];

/** The keys a page of deliveries signs with: the account's, and each of the page's webhook endpoints' own. */
export type PageKeys = { account: Keys; endpoints: Map<string, Keys> };

export type AttemptStatus = "delivered" | "retrying" | "failed";
export type AttemptFields = Partial<Pick<AttemptRow, "statusCode" | "latencyMs" | "responseSnippet" | "error" | "nextAttemptAt">>;
/** One attempt's result, to be logged and applied to its message. */
export type Outcome = { message: DueMessage; attempt: number; fields: AttemptFields; status: AttemptStatus; at: number };
