-- brands: an account's brand kit (logo, four colours, a font), one row per account, gone with the account.
CREATE TABLE `brands` (
	`account_id` text PRIMARY KEY NOT NULL,
	`logo_key` text,
	`logo_type` text,
	`logo_width` integer,
	`logo_height` integer,
	`primary_color` text,
	`secondary_color` text,
	`background_color` text,
	`text_color` text,
	`font` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
