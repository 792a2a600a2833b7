import { bigint, bigserial, boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const money = (name: string) => bigint(name, { mode: 'number' });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Carrier-priced quote items as the customer saw them: a purchase of the same service for the same
 * parcel and route charges the latest one until it expires, and refuses a higher price after that.
 */
export const quotes = pgTable(
  'quotes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: text('account_id').notNull(),
    livemode: boolean('livemode').notNull(),
    serviceCode: text('service_code').notNull(),
    /** Canonical hash of parcel, from and to (carriers/quote.ts, shipmentHash). */
    shipmentHash: text('shipment_hash').notNull(),
    net: money('net').notNull(),
    vat: money('vat').notNull(),
    gross: money('gross').notNull(),
    currency: text('currency').notNull(),
    expiresAt: ts('expires_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('quotes_lookup_idx').on(t.accountId, t.livemode, t.serviceCode, t.shipmentHash, t.createdAt)],
);
