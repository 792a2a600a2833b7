ALTER TABLE "batches" ADD COLUMN "label_shipment_ids" text[];--> statement-breakpoint
-- A completed batch's file was made from the items that had a label then: those that have one now,
-- and those voided since (a file that still holds a voided label is then made again when next read).
UPDATE "batches" AS b SET "label_shipment_ids" = ARRAY(
  SELECT s."id" FROM "shipments" AS s
  WHERE s."batch_id" = b."id" AND s."status" IN ('purchased', 'in_transit', 'exception', 'delivered', 'voiding', 'voided')
  ORDER BY s."batch_index"
) WHERE b."status" = 'completed';
