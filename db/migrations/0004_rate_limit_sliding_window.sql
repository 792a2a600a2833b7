-- A key's allowance is a sliding window: the times of the requests admitted within the last window.
ALTER TABLE "rate_limits" ADD COLUMN "admitted" timestamp (6) with time zone[] DEFAULT '{}' NOT NULL;
