CREATE TABLE "scan_forms" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"carrier" text NOT NULL,
	"shipment_ids" text[] NOT NULL,
	"carrier_form_id" text NOT NULL,
	"content_type" text NOT NULL,
	"content" bytea NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scan_form_shipments" (
	"shipment_id" text PRIMARY KEY NOT NULL,
	"scan_form_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pickups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"carrier" text NOT NULL,
	"status" text NOT NULL,
	"confirmation" text NOT NULL,
	"price_net" bigint,
	"price_vat" bigint,
	"currency" text,
	"address" jsonb NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"shipment_ids" text[] NOT NULL,
	"instructions" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cancelled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "scan_forms" ADD CONSTRAINT "scan_forms_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scan_form_shipments" ADD CONSTRAINT "scan_form_shipments_scan_form_id_scan_forms_id_fk" FOREIGN KEY ("scan_form_id") REFERENCES "public"."scan_forms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pickups" ADD CONSTRAINT "pickups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "scan_forms_account_idx" ON "scan_forms" USING btree ("account_id","livemode","id");--> statement-breakpoint
CREATE INDEX "pickups_account_idx" ON "pickups" USING btree ("account_id","livemode","id");
