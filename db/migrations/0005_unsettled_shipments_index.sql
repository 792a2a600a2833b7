-- The sweep looks, every minute, for the shipments a purchase or a void is under way on (status pending or voiding).
CREATE INDEX "shipments_unsettled_idx" ON "shipments" USING btree ("updated_at") WHERE "shipments"."status" in ('pending', 'voiding');
