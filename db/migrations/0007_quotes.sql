-- Each carrier-priced quote item: a purchase of the same service, parcel and route charges it until it expires.
CREATE TABLE "quotes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"livemode" boolean NOT NULL,
	"service_code" text NOT NULL,
	"shipment_hash" text NOT NULL,
	"net" bigint NOT NULL,
	"vat" bigint NOT NULL,
	"gross" bigint NOT NULL,
	"currency" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "quotes_lookup_idx" ON "quotes" USING btree ("account_id","livemode","service_code","shipment_hash","created_at");
