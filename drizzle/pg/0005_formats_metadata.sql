ALTER TABLE "products" ADD COLUMN "metadata" text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "videos" ADD COLUMN "aspect_ratio" text DEFAULT '9:16' NOT NULL;--> statement-breakpoint
ALTER TABLE "videos" ADD COLUMN "metadata" text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "videos" ADD COLUMN "files_deleted_at" bigint;