-- webhook_attempts keyed by (message_id, id): one index serves the insert and every read (by message), where the id
-- key and the message index were two to write per attempt.
DROP INDEX "webhook_attempts_message_idx";--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_pkey";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_message_id_id_pk" PRIMARY KEY("message_id","id");
