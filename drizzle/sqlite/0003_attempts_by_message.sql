-- webhook_attempts keyed by (message_id, id) and WITHOUT ROWID: the key is the table, so logging an attempt writes one
-- b-tree instead of three (rowid table, id key, message index). Rebuilt in place; nothing references this table.
CREATE TABLE `__new_webhook_attempts` (
	`id` text NOT NULL,
	`message_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`latency_ms` integer,
	`response_snippet` text,
	`error` text,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `id`),
	FOREIGN KEY (`message_id`) REFERENCES `webhook_messages`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_webhook_attempts`("id", "message_id", "attempt", "status_code", "latency_ms", "response_snippet", "error", "next_attempt_at", "created_at") SELECT "id", "message_id", "attempt", "status_code", "latency_ms", "response_snippet", "error", "next_attempt_at", "created_at" FROM `webhook_attempts`;--> statement-breakpoint
DROP TABLE `webhook_attempts`;--> statement-breakpoint
ALTER TABLE `__new_webhook_attempts` RENAME TO `webhook_attempts`;
