CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"status" text NOT NULL,
	"label_format" text NOT NULL,
	"total" integer NOT NULL,
	"label_content_type" text,
	"label_content" "bytea",
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "batches_account_idx" ON "batches" USING btree ("account_id","livemode","id");--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "batch_id" text;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "batch_index" integer;--> statement-breakpoint
CREATE UNIQUE INDEX "shipments_batch_idx" ON "shipments" USING btree ("batch_id","batch_index") WHERE "shipments"."batch_id" is not null;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "batch_id" text;
