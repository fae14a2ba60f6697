// The PostgreSQL twin of schema.ts (the canonical one): same tables, columns and JS keys, so domain code sees the same
// values on both; `npm run db:generate:pg` writes drizzle/pg from this file. Change both files together.
// Epoch-ms times, credits and money are bigint read back as JS numbers; JSON stays text so stored bytes never change.
import { sql } from "drizzle-orm";
import { bigint, boolean, doublePrecision, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./schema-accounts-pg";

const ms = (name: string) => bigint(name, { mode: "number" });

// Accounts, tokens, Studio sessions and login links live in schema-accounts-pg.ts.
export * from "./schema-accounts-pg";

export const products = pgTable(
  "products",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    imageKey: text("image_key").notNull(),
    imageType: text("image_type").notNull(),
    imageWidth: integer("image_width").notNull(),
    imageHeight: integer("image_height").notNull(),
    originalKey: text("original_key").notNull(),
    originalType: text("original_type").notNull(),
    originalWidth: integer("original_width").notNull(),
    originalHeight: integer("original_height").notNull(),
    originalSize: ms("original_size").notNull(),
    originalSha256: text("original_sha256").notNull(),
    originalSource: text("original_source").notNull(),
    dekupeEnabled: boolean("dekupe_enabled").notNull().default(true),
    dekupeStatus: text("dekupe_status").notNull().default("off"),
    dekupeAttempts: integer("dekupe_attempts").notNull().default(0),
    dekupeRetriesLeft: integer("dekupe_retries_left").notNull().default(3),
    dekupeError: text("dekupe_error"),
    // Why the attempt failed, for programs and translated messages (src/products/dekupe-errors.ts); null unless failed.
    dekupeErrorCode: text("dekupe_error_code"),
    dekupePreviewKey: text("dekupe_preview_key"),
    dekupeMaskKey: text("dekupe_mask_key"),
    dekupeBox: text("dekupe_box"),
    dekupeTimings: text("dekupe_timings"),
    // The caller's own key-value pairs (a JSON object of strings, Stripe's limits), returned as they were given.
    metadata: text("metadata").notNull().default("{}"),
    dekupeUpdatedAt: ms("dekupe_updated_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("products_account_created_idx").on(t.accountId, t.createdAt, t.id)],
);

/**
 * Every cut-out attempt of a product, kept with its files so the account can compare them and accept one; the
 * product row points at the attempt in use. Its files go when the product does.
 */
export const dekupeAttempts = pgTable(
  "dekupe_attempts",
  {
    id: text("id").primaryKey(),
    productId: text("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    // The product's dekupe_attempts when this one ran (1 = the first cut-out, 2..4 the retries).
    number: integer("number").notNull(),
    // The photo it cut out: an attempt of an earlier photo cannot be accepted.
    originalKey: text("original_key").notNull(),
    status: text("status").notNull(),
    method: text("method"),
    crop: text("crop").notNull(),
    previewKey: text("preview_key"),
    maskKey: text("mask_key"),
    width: integer("width"),
    height: integer("height"),
    // JSON: the box within the PNG, the place in the photo, the warnings.
    box: text("box"),
    sourceBox: text("source_box"),
    warnings: text("warnings").notNull().default("[]"),
    error: text("error"),
    errorCode: text("error_code"),
    acceptedAt: ms("accepted_at"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("dekupe_attempts_product_idx").on(t.productId, t.number)],
);

export const transactions = pgTable(
  "transactions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    amount: ms("amount").notNull(),
    type: text("type").notNull(),
    description: text("description").notNull().default(""),
    platform: text("platform").notNull(),
    reference: text("reference"),
    balanceAfter: ms("balance_after").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("transactions_reference_idx").on(t.reference),
    index("transactions_account_created_idx").on(t.accountId, t.createdAt, t.id),
  ],
);

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    accountId: text("account_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state").notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] }), index("idempotency_expires_idx").on(t.expiresAt)],
);

export const jobs = pgTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    payload: text("payload").notNull().default("{}"),
    status: text("status").notNull().default("queued"),
    priority: integer("priority").notNull().default(0),
    runAt: ms("run_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(5),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: ms("lease_expires_at"),
    heartbeatAt: ms("heartbeat_at"),
    lastError: text("last_error"),
    dedupeKey: text("dedupe_key"),
    // Held only while the job is queued: claiming it clears the key (see EnqueueOptions.debounceKey).
    debounceKey: text("debounce_key"),
    concurrencyKey: text("concurrency_key"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    startedAt: ms("started_at"),
    finishedAt: ms("finished_at"),
  },
  (t) => [
    index("jobs_ready_idx")
      .on(t.kind, t.priority.desc(), t.runAt, t.id)
      .where(sql`status IN ('queued', 'failed')`),
    index("jobs_lease_idx")
      .on(t.leaseExpiresAt)
      .where(sql`status = 'running'`),
    // Claims count running jobs per concurrency key; only running keyed rows are in this one.
    index("jobs_running_key_idx")
      .on(t.kind, t.concurrencyKey)
      .where(sql`status = 'running' AND concurrency_key IS NOT NULL`),
    index("jobs_kind_status_idx").on(t.kind, t.status),
    index("jobs_finished_idx")
      .on(t.status, t.finishedAt)
      .where(sql`finished_at IS NOT NULL`),
    uniqueIndex("jobs_dedupe_idx")
      .on(t.dedupeKey)
      .where(sql`dedupe_key IS NOT NULL AND status IN ('queued', 'running', 'failed')`),
    uniqueIndex("jobs_debounce_idx")
      .on(t.debounceKey)
      .where(sql`debounce_key IS NOT NULL`),
  ],
);

export const webhookSecrets = pgTable(
  "webhook_secrets",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at"),
  },
  (t) => [index("webhook_secrets_account_idx").on(t.accountId, t.expiresAt)],
);

// An account's own webhook receivers beside the per-video webhook_url: each with the events it wants and its own
// signing secret (the previous one keeps signing until previous_expires_at after a rotation).
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    // JSON array of event names, or ["*"] for every event.
    events: text("events").notNull(),
    description: text("description").notNull().default(""),
    enabled: boolean("enabled").notNull().default(true),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousExpiresAt: ms("previous_expires_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_account_idx").on(t.accountId, t.createdAt, t.id)],
);

export const webhookMessages = pgTable(
  "webhook_messages",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    url: text("url").notNull(),
    videoId: text("video_id"),
    // The webhook endpoint it goes to (signed with that endpoint's secret); null: a video's or the account's URL.
    endpointId: text("endpoint_id"),
    payload: text("payload").notNull(),
    status: text("status").notNull(),
    attemptCount: integer("attempt_count").notNull().default(0),
    // When the next attempt is due; null once the message is delivered or given up on.
    nextAttemptAt: ms("next_attempt_at"),
    // attempt_count when the current retry schedule began (a redelivery starts a new one).
    retryBase: integer("retry_base").notNull().default(0),
    deliveredAt: ms("delivered_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at"),
  },
  (t) => [
    index("webhook_messages_account_created_idx").on(t.accountId, t.createdAt, t.id),
    index("webhook_messages_video_idx").on(t.videoId),
    // An account's undelivered messages in the order its delivery job sends them; delivered ones leave it.
    index("webhook_messages_due_idx")
      .on(t.accountId, t.nextAttemptAt, t.id)
      .where(sql`next_attempt_at IS NOT NULL`),
  ],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    // Unique within its message, which is all anything looks attempts up by.
    id: text("id").notNull(),
    messageId: text("message_id")
      .notNull()
      .references(() => webhookMessages.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms"),
    responseSnippet: text("response_snippet"),
    error: text("error"),
    nextAttemptAt: ms("next_attempt_at"),
    createdAt: ms("created_at").notNull(),
  },
  // Keyed by message first, so a message's attempts sit together and one key serves both the insert and every read
  // (on SQLite the table is WITHOUT ROWID: the key is the table). A separate id key and message index cost a delivery
  // two more b-trees to write.
  (t) => [primaryKey({ columns: [t.messageId, t.id] })],
);

export const topUps = pgTable(
  "top_ups",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    amount: ms("amount").notNull(),
    currency: text("currency").notNull(),
    credits: ms("credits").notNull(),
    status: text("status").notNull(),
    provider: text("provider").notNull(),
    providerReference: text("provider_reference"),
    paymentUrl: text("payment_url"),
    failureReason: text("failure_reason"),
    expiresAt: ms("expires_at").notNull(),
    paidAt: ms("paid_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [
    index("top_ups_account_created_idx").on(t.accountId, t.createdAt, t.id),
    index("top_ups_provider_ref_idx").on(t.provider, t.providerReference),
  ],
);

export const paymentEvents = pgTable("payment_events", {
  id: text("id").primaryKey(),
  provider: text("provider").notNull(),
  type: text("type").notNull(),
  topUpId: text("top_up_id"),
  receivedAt: ms("received_at").notNull(),
});

export const videos = pgTable(
  "videos",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    productId: text("product_id").notNull(),
    templateId: text("template_id").notNull(),
    language: text("language").notNull(),
    userPrompt: text("user_prompt").notNull().default("{}"),
    webhookUrl: text("webhook_url"),
    // The music track chosen at create time ("none": no audio stream; null on videos made before music).
    music: text("music"),
    // The format asked for at create time: 9:16, 4:5, 1:1 or 16:9 (videos made before formats were 9:16 or the template's own).
    aspectRatio: text("aspect_ratio").notNull().default("9:16"),
    // The caller's own key-value pairs (a JSON object of strings), returned everywhere the video is.
    metadata: text("metadata").notNull().default("{}"),
    // When the video's files were removed (DELETE /v1/videos/:id or the retention schedule); the record stays.
    filesDeletedAt: ms("files_deleted_at"),
    status: text("status").notNull(),
    progress: integer("progress").notNull().default(0),
    videoKey: text("video_key"),
    thumbnailKey: text("thumbnail_key"),
    durationMs: ms("duration_ms"),
    width: integer("width"),
    height: integer("height"),
    credits: ms("credits").notNull(),
    creditsUsed: ms("credits_used").notNull().default(0),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    startedAt: ms("started_at"),
    completedAt: ms("completed_at"),
    failedAt: ms("failed_at"),
  },
  (t) => [index("videos_account_created_idx").on(t.accountId, t.createdAt, t.id), index("videos_product_idx").on(t.productId)],
);

/**
 * PostgreSQL only: the shared rate limiter's state (GCRA's theoretical arrival time per key), so every instance behind
 * a load balancer counts against the same budget. On SQLite (one host) the limiter keeps this in memory.
 */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  // Fractional: the emission interval (60 000 / per-minute rate) rarely divides evenly.
  tat: doublePrecision("tat").notNull(),
});

// An account's brand kit (PUT /v1/brand): at most one row per account; every field may be unset (null).
export const brands = pgTable("brands", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id, { onDelete: "cascade" }),
  logoKey: text("logo_key"),
  logoType: text("logo_type"),
  logoWidth: integer("logo_width"),
  logoHeight: integer("logo_height"),
  primaryColor: text("primary_color"),
  secondaryColor: text("secondary_color"),
  backgroundColor: text("background_color"),
  textColor: text("text_color"),
  font: text("font"),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
});
