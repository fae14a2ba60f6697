CREATE TABLE "dekupe_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"product_id" text NOT NULL,
	"number" integer NOT NULL,
	"original_key" text NOT NULL,
	"status" text NOT NULL,
	"method" text,
	"crop" text NOT NULL,
	"preview_key" text,
	"mask_key" text,
	"width" integer,
	"height" integer,
	"box" text,
	"source_box" text,
	"warnings" text DEFAULT '[]' NOT NULL,
	"error" text,
	"accepted_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dekupe_attempts" ADD CONSTRAINT "dekupe_attempts_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dekupe_attempts_product_idx" ON "dekupe_attempts" USING btree ("product_id","number");