-- A replayed answer keeps the first answer's key order: json keeps the text as written, jsonb sorts keys.
ALTER TABLE "idempotency_keys" ALTER COLUMN "response_body" SET DATA TYPE json;
