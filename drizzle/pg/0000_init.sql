CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"credits" bigint DEFAULT 0 NOT NULL,
	"is_premium" boolean DEFAULT false NOT NULL,
	"language" text DEFAULT 'en' NOT NULL,
	"webhook_url" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"account_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "idempotency_keys_account_id_key_pk" PRIMARY KEY("account_id","key")
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"payload" text DEFAULT '{}' NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"run_at" bigint NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 5 NOT NULL,
	"lease_owner" text,
	"lease_expires_at" bigint,
	"heartbeat_at" bigint,
	"last_error" text,
	"dedupe_key" text,
	"concurrency_key" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"started_at" bigint,
	"finished_at" bigint
);
--> statement-breakpoint
CREATE TABLE "payment_events" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"type" text NOT NULL,
	"top_up_id" text,
	"received_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"image_key" text NOT NULL,
	"image_type" text NOT NULL,
	"image_width" integer NOT NULL,
	"image_height" integer NOT NULL,
	"original_key" text NOT NULL,
	"original_type" text NOT NULL,
	"original_width" integer NOT NULL,
	"original_height" integer NOT NULL,
	"original_size" bigint NOT NULL,
	"original_sha256" text NOT NULL,
	"original_source" text NOT NULL,
	"dekupe_enabled" boolean DEFAULT true NOT NULL,
	"dekupe_status" text DEFAULT 'off' NOT NULL,
	"dekupe_attempts" integer DEFAULT 0 NOT NULL,
	"dekupe_retries_left" integer DEFAULT 3 NOT NULL,
	"dekupe_error" text,
	"dekupe_preview_key" text,
	"dekupe_mask_key" text,
	"dekupe_box" text,
	"dekupe_timings" text,
	"dekupe_updated_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"tat" double precision NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"hash" text NOT NULL,
	"hint" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "top_ups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"credits" bigint NOT NULL,
	"status" text NOT NULL,
	"provider" text NOT NULL,
	"provider_reference" text,
	"payment_url" text,
	"failure_reason" text,
	"expires_at" bigint NOT NULL,
	"paid_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"type" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"platform" text NOT NULL,
	"reference" text,
	"balance_after" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "videos" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"product_id" text NOT NULL,
	"template_id" text NOT NULL,
	"language" text NOT NULL,
	"user_prompt" text DEFAULT '{}' NOT NULL,
	"webhook_url" text,
	"status" text NOT NULL,
	"progress" integer DEFAULT 0 NOT NULL,
	"video_key" text,
	"thumbnail_key" text,
	"duration_ms" bigint,
	"width" integer,
	"height" integer,
	"credits" bigint NOT NULL,
	"credits_used" bigint DEFAULT 0 NOT NULL,
	"error_code" text,
	"error_message" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"started_at" bigint,
	"completed_at" bigint,
	"failed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"message_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"status_code" integer,
	"latency_ms" integer,
	"response_snippet" text,
	"error" text,
	"next_attempt_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"event" text NOT NULL,
	"url" text NOT NULL,
	"video_id" text,
	"payload" text NOT NULL,
	"status" text NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"delivered_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint
);
--> statement-breakpoint
CREATE TABLE "webhook_secrets" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint
);
--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "top_ups" ADD CONSTRAINT "top_ups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "videos" ADD CONSTRAINT "videos_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_message_id_webhook_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."webhook_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_messages" ADD CONSTRAINT "webhook_messages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_secrets" ADD CONSTRAINT "webhook_secrets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "jobs_ready_idx" ON "jobs" USING btree ("kind","priority" DESC NULLS LAST,"run_at","id") WHERE status IN ('queued', 'failed');--> statement-breakpoint
CREATE INDEX "jobs_lease_idx" ON "jobs" USING btree ("lease_expires_at") WHERE status = 'running';--> statement-breakpoint
CREATE INDEX "jobs_running_key_idx" ON "jobs" USING btree ("kind","concurrency_key") WHERE status = 'running' AND concurrency_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX "jobs_kind_status_idx" ON "jobs" USING btree ("kind","status");--> statement-breakpoint
CREATE INDEX "jobs_finished_idx" ON "jobs" USING btree ("status","finished_at") WHERE finished_at IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_dedupe_idx" ON "jobs" USING btree ("dedupe_key") WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running', 'failed');--> statement-breakpoint
CREATE INDEX "products_account_created_idx" ON "products" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tokens_hash_idx" ON "tokens" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "tokens_account_idx" ON "tokens" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "top_ups_account_created_idx" ON "top_ups" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "top_ups_provider_ref_idx" ON "top_ups" USING btree ("provider","provider_reference");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_reference_idx" ON "transactions" USING btree ("reference");--> statement-breakpoint
CREATE INDEX "transactions_account_created_idx" ON "transactions" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "videos_account_created_idx" ON "videos" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "videos_product_idx" ON "videos" USING btree ("product_id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_message_idx" ON "webhook_attempts" USING btree ("message_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_messages_account_created_idx" ON "webhook_messages" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_messages_video_idx" ON "webhook_messages" USING btree ("video_id");--> statement-breakpoint
CREATE INDEX "webhook_secrets_account_idx" ON "webhook_secrets" USING btree ("account_id","expires_at");