// Table definitions for the embedded SQLite database; drizzle-kit generates migrations from this file.
// Times are integer epoch milliseconds (portable to PostgreSQL bigint and cheap to compare); JSON is stored as text.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./schema-accounts";

// Accounts, tokens, Studio sessions and login links live in schema-accounts.ts.
export * from "./schema-accounts";

export const products = sqliteTable(
  "products",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    // The image in use: the cleaned cut-out once dekupe is ready, otherwise the original.
    imageKey: text("image_key").notNull(),
    imageType: text("image_type").notNull(),
    imageWidth: integer("image_width").notNull(),
    imageHeight: integer("image_height").notNull(),
    originalKey: text("original_key").notNull(),
    originalType: text("original_type").notNull(),
    originalWidth: integer("original_width").notNull(),
    originalHeight: integer("original_height").notNull(),
    originalSize: integer("original_size").notNull(),
    originalSha256: text("original_sha256").notNull(),
    originalSource: text("original_source").notNull(),
    // Whether the caller wants cut-outs for this product; status says where the current attempt stands.
    dekupeEnabled: integer("dekupe_enabled", { mode: "boolean" }).notNull().default(true),
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
    dekupeUpdatedAt: integer("dekupe_updated_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("products_account_created_idx").on(t.accountId, t.createdAt, t.id)],
);

/**
 * Every cut-out attempt of a product, kept with its files so the account can compare them and accept one; the
 * product row points at the attempt in use. Its files go when the product does.
 */
export const dekupeAttempts = sqliteTable(
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
    acceptedAt: integer("accepted_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("dekupe_attempts_product_idx").on(t.productId, t.number)],
);

export const transactions = sqliteTable(
  "transactions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    amount: integer("amount").notNull(),
    type: text("type").notNull(),
    description: text("description").notNull().default(""),
    platform: text("platform").notNull(),
    // What caused the row (a top-up, a video, an admin request); unique so one cause can never book twice.
    reference: text("reference"),
    balanceAfter: integer("balance_after").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("transactions_reference_idx").on(t.reference),
    index("transactions_account_created_idx").on(t.accountId, t.createdAt, t.id),
  ],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    accountId: text("account_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    // 'processing' while the first request runs, 'done' once its response is stored.
    state: text("state").notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] }), index("idempotency_expires_idx").on(t.expiresAt)],
);

export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    payload: text("payload").notNull().default("{}"),
    // queued → running → succeeded | failed (a retry is scheduled) → … → dead (gave up).
    status: text("status").notNull().default("queued"),
    priority: integer("priority").notNull().default(0),
    runAt: integer("run_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(5),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at"),
    heartbeatAt: integer("heartbeat_at"),
    lastError: text("last_error"),
    dedupeKey: text("dedupe_key"),
    // Held only while the job is queued: claiming it clears the key (see EnqueueOptions.debounceKey).
    debounceKey: text("debounce_key"),
    concurrencyKey: text("concurrency_key"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    // Claims walk this in claim order (priority DESC, run_at, id) per kind and stop after a few rows, so a deep backlog
    // costs a claim nothing; only claimable rows are in it, which keeps it small. The key and status ride along so the
    // walk never reads the table: skipping a key at its limit costs one index entry, not a row lookup (claims ~20 %
    // cheaper, and half the cost of walking past a full key's backlog).
    index("jobs_ready_idx")
      .on(t.kind, sql`${t.priority} desc`, t.runAt, t.id, t.concurrencyKey, t.status)
      .where(sql`status IN ('queued', 'failed')`),
    // Lease rescue looks only at running jobs, retention only at finished ones: partial indexes keep every other row
    // out, so a job moving through its states touches fewer index entries (about a third faster claims and completes).
    index("jobs_lease_idx")
      .on(t.leaseExpiresAt)
      .where(sql`status = 'running'`),
    // Claims count running jobs per concurrency key; only running keyed rows are in this one. It replaced an index on
    // (kind, status) that every state change rewrote; stats and the admin list scan the (pruned) table instead.
    index("jobs_running_key_idx")
      .on(t.kind, t.concurrencyKey)
      .where(sql`status = 'running' AND concurrency_key IS NOT NULL`),
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

export const webhookSecrets = sqliteTable(
  "webhook_secrets",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    createdAt: integer("created_at").notNull(),
    // Null for the current secret; set when rotated out (it keeps signing until then).
    expiresAt: integer("expires_at"),
  },
  (t) => [index("webhook_secrets_account_idx").on(t.accountId, t.expiresAt)],
);

// An account's own webhook receivers beside the per-video webhook_url: each with the events it wants and its own
// signing secret (the previous one keeps signing until previous_expires_at after a rotation).
export const webhookEndpoints = sqliteTable(
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
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousExpiresAt: integer("previous_expires_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_account_idx").on(t.accountId, t.createdAt, t.id)],
);

export const webhookMessages = sqliteTable(
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
    // The exact body sent on every attempt, so retries carry identical bytes.
    payload: text("payload").notNull(),
    // pending → delivered | retrying → … → delivered | failed
    status: text("status").notNull(),
    attemptCount: integer("attempt_count").notNull().default(0),
    // When the next attempt is due; null once the message is delivered or given up on.
    nextAttemptAt: integer("next_attempt_at"),
    // attempt_count when the current retry schedule began (a redelivery starts a new one).
    retryBase: integer("retry_base").notNull().default(0),
    deliveredAt: integer("delivered_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at"),
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

export const webhookAttempts = sqliteTable(
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
    nextAttemptAt: integer("next_attempt_at"),
    createdAt: integer("created_at").notNull(),
  },
  // Keyed by message first, so a message's attempts sit together and one key serves both the insert and every read
  // (on SQLite the table is WITHOUT ROWID: the key is the table). A separate id key and message index cost a delivery
  // two more b-trees to write.
  (t) => [primaryKey({ columns: [t.messageId, t.id] })],
);

export const topUps = sqliteTable(
  "top_ups",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    credits: integer("credits").notNull(),
    // pending → paid | failed | expired (a late payment still turns an expired or failed top-up into paid)
    status: text("status").notNull(),
    provider: text("provider").notNull(),
    providerReference: text("provider_reference"),
    paymentUrl: text("payment_url"),
    failureReason: text("failure_reason"),
    expiresAt: integer("expires_at").notNull(),
    paidAt: integer("paid_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("top_ups_account_created_idx").on(t.accountId, t.createdAt, t.id),
    index("top_ups_provider_ref_idx").on(t.provider, t.providerReference),
  ],
);

/** Provider notifications already handled, so a repeated event is acknowledged without acting twice. */
export const paymentEvents = sqliteTable("payment_events", {
  id: text("id").primaryKey(),
  provider: text("provider").notNull(),
  type: text("type").notNull(),
  topUpId: text("top_up_id"),
  receivedAt: integer("received_at").notNull(),
});

export const videos = sqliteTable(
  "videos",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    // No foreign key: a video outlives the product it was made from.
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
    filesDeletedAt: integer("files_deleted_at"),
    // queued → processing → completed | failed
    status: text("status").notNull(),
    progress: integer("progress").notNull().default(0),
    videoKey: text("video_key"),
    thumbnailKey: text("thumbnail_key"),
    durationMs: integer("duration_ms"),
    width: integer("width"),
    height: integer("height"),
    // The template's price, reserved when the video was accepted.
    credits: integer("credits").notNull(),
    creditsUsed: integer("credits_used").notNull().default(0),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    startedAt: integer("started_at"),
    completedAt: integer("completed_at"),
    failedAt: integer("failed_at"),
  },
  (t) => [index("videos_account_created_idx").on(t.accountId, t.createdAt, t.id), index("videos_product_idx").on(t.productId)],
);

// An account's brand kit (PUT /v1/brand): at most one row per account; every field may be unset (null).
export const brands = sqliteTable("brands", {
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
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
