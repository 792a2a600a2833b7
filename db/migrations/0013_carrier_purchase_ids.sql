-- The purchase's ids as the carrier answered the buy, kept with its label: what a void and a label recovery take (never a lookup at the carrier). Null in rows stored before they were kept.
ALTER TABLE "carrier_labels" ADD COLUMN "tracking_number" text;--> statement-breakpoint
ALTER TABLE "carrier_labels" ADD COLUMN "carrier_shipment_id" text;
