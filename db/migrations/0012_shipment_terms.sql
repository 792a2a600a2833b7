CREATE TABLE "shipment_documents" (
	"shipment_id" text NOT NULL,
	"type" text NOT NULL,
	"format" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shipment_documents_shipment_id_type_pk" PRIMARY KEY("shipment_id","type")
);
--> statement-breakpoint
ALTER TABLE "addresses" ADD COLUMN "company" text;--> statement-breakpoint
ALTER TABLE "addresses" ADD COLUMN "phone" text;--> statement-breakpoint
ALTER TABLE "addresses" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "is_return" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "options" jsonb;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "customs" jsonb;--> statement-breakpoint
ALTER TABLE "shipments" ADD COLUMN "return_of" text;
