ALTER TABLE `products` ADD `metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `videos` ADD `aspect_ratio` text DEFAULT '9:16' NOT NULL;--> statement-breakpoint
ALTER TABLE `videos` ADD `metadata` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `videos` ADD `files_deleted_at` integer;