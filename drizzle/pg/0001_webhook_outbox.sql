ALTER TABLE "jobs" ADD COLUMN "debounce_key" text;--> statement-breakpoint
ALTER TABLE "webhook_messages" ADD COLUMN "next_attempt_at" bigint;--> statement-breakpoint
ALTER TABLE "webhook_messages" ADD COLUMN "retry_base" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_debounce_idx" ON "jobs" USING btree ("debounce_key") WHERE debounce_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_messages_due_idx" ON "webhook_messages" USING btree ("account_id","next_attempt_at","id") WHERE next_attempt_at IS NOT NULL;--> statement-breakpoint
-- Messages not yet delivered or given up on are due at their scheduled retry, or at once when none is scheduled.
UPDATE webhook_messages SET next_attempt_at = CASE
    WHEN status = 'retrying' THEN coalesce(
      (SELECT a.next_attempt_at FROM webhook_attempts a WHERE a.message_id = webhook_messages.id ORDER BY a.created_at DESC LIMIT 1),
      updated_at, created_at)
    ELSE coalesce(updated_at, created_at)
  END
  WHERE status IN ('pending', 'retrying');
