-- The sends of a buy at a carrier without idempotency keys: which attempt may still send, and when the latest one sent.
CREATE TABLE IF NOT EXISTS "carrier_sends" (
	"reference" text PRIMARY KEY NOT NULL,
	"attempt" integer NOT NULL,
	"sent_attempt" integer,
	"sent_at" timestamp with time zone
);
