CREATE TABLE `dekupe_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`product_id` text NOT NULL,
	`number` integer NOT NULL,
	`original_key` text NOT NULL,
	`status` text NOT NULL,
	`method` text,
	`crop` text NOT NULL,
	`preview_key` text,
	`mask_key` text,
	`width` integer,
	`height` integer,
	`box` text,
	`source_box` text,
	`warnings` text DEFAULT '[]' NOT NULL,
	`error` text,
	`accepted_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`product_id`) REFERENCES `products`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dekupe_attempts_product_idx` ON `dekupe_attempts` (`product_id`,`number`);