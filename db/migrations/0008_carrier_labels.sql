-- A real carrier's label as it was bought, stored once per shipment: the document (the image or PDF the label files are made from), its ZPL when the carrier gives one, and what the carrier bills for it (for reconciliation, not shown in the API).
CREATE TABLE "carrier_labels" (
	"shipment_id" text PRIMARY KEY NOT NULL,
	"carrier" text NOT NULL,
	"format" text NOT NULL,
	"content" "bytea" NOT NULL,
	"zpl" "bytea",
	"billed_amount" bigint,
	"billed_currency" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The carrier's own status code of a scan, as it sent it (null when it sends none).
ALTER TABLE "tracking_events" ADD COLUMN "carrier_code" text;
