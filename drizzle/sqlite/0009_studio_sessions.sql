CREATE TABLE `login_links` (
	`id` text PRIMARY KEY NOT NULL,
	`hash` text NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `login_links_hash_idx` ON `login_links` (`hash`);--> statement-breakpoint
CREATE INDEX `login_links_expires_idx` ON `login_links` (`expires_at`);--> statement-breakpoint
CREATE TABLE `studio_sessions` (
	`hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`account_id` text,
	`opened_with` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `studio_sessions_expires_idx` ON `studio_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `studio_sessions_account_idx` ON `studio_sessions` (`account_id`);