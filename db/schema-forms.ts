import { bigint, boolean, customType, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from './schema.js';

/** SCAN forms and pickups: the tables of migration 0010. */

const money = (name: string) => bigint(name, { mode: 'number' });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/** A carrier's manifest (USPS SCAN form) of purchased shipments, with its file as we serve it (a PDF). */
export const scanForms = pgTable(
  'scan_forms',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    livemode: boolean('livemode').notNull(),
    carrier: text('carrier').notNull(),
    /** In the order the request gave them. */
    shipmentIds: text('shipment_ids').array().notNull(),
    carrierFormId: text('carrier_form_id').notNull(),
    contentType: text('content_type').notNull(),
    content: bytea('content').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('scan_forms_account_idx').on(t.accountId, t.livemode, t.id)],
);

/** Which form a shipment is on: the key makes a shipment's second form impossible, whatever races. */
export const scanFormShipments = pgTable('scan_form_shipments', {
  shipmentId: text('shipment_id').primaryKey(),
  scanFormId: text('scan_form_id')
    .notNull()
    .references(() => scanForms.id),
});

/** A carrier collection booked for an account; its fee, where there is one, is in the ledger under its id. */
export const pickups = pgTable(
  'pickups',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    livemode: boolean('livemode').notNull(),
    carrier: text('carrier').notNull(),
    /** requested | scheduled | cancelled | failed | unconfirmed (db/queries/pickups.ts: only scheduled and cancelled are shown) */
    status: text('status').notNull(),
    /** The carrier's; empty while it is not known. */
    confirmation: text('confirmation').notNull(),
    /** The fee charged (net and VAT, in minor units of `currency`); null when the carrier charges none. */
    priceNet: money('price_net'),
    priceVat: money('price_vat'),
    currency: text('currency'),
    address: jsonb('address').notNull(),
    windowStart: ts('window_start').notNull(),
    windowEnd: ts('window_end').notNull(),
    shipmentIds: text('shipment_ids').array().notNull(),
    instructions: text('instructions'),
    createdAt: ts('created_at').notNull().defaultNow(),
    cancelledAt: ts('cancelled_at'),
  },
  (t) => [index('pickups_account_idx').on(t.accountId, t.livemode, t.id)],
);
export type ScanFormRow = typeof scanForms.$inferSelect;
export type PickupRow = typeof pickups.$inferSelect;
