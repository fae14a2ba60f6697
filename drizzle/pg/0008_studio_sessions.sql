CREATE TABLE "login_links" (
	"id" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"account_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint
);
--> statement-breakpoint
CREATE TABLE "studio_sessions" (
	"hash" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account_id" text,
	"opened_with" text NOT NULL,
	"csrf_token" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "login_links" ADD CONSTRAINT "login_links_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "studio_sessions" ADD CONSTRAINT "studio_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "login_links_hash_idx" ON "login_links" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "login_links_expires_idx" ON "login_links" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "studio_sessions_expires_idx" ON "studio_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "studio_sessions_account_idx" ON "studio_sessions" USING btree ("account_id");