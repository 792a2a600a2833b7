import { bigint, customType, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/**
 * A real carrier's label as bought, once per shipment: the document the label files are made from
 * (an image or a PDF, or ZPL), the carrier's ZPL beside it when the document is not ZPL, and the
 * carrier's billed amount for reconciliation (never shown in the API).
 */
export const carrierLabels = pgTable('carrier_labels', {
  shipmentId: text('shipment_id').primaryKey(),
  carrier: text('carrier').notNull(),
  format: text('format').notNull(),
  content: bytea('content').notNull(),
  zpl: bytea('zpl'),
  billedAmount: bigint('billed_amount', { mode: 'number' }),
  billedCurrency: text('billed_currency'),
  /**
   * The purchase's ids as the carrier answered the buy, what a void and a label recovery take: its
   * tracking number and its own shipment id (UPS's ShipmentIdentificationNumber; null where it has none).
   */
  trackingNumber: text('tracking_number'),
  carrierShipmentId: text('carrier_shipment_id'),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Label files we make (sandbox and simulated carriers, and those made from a carrier's document), once each. */
export const labelFiles = pgTable(
  'label_files',
  {
    shipmentId: text('shipment_id').notNull(),
    format: text('format').notNull(),
    contentType: text('content_type').notNull(),
    content: bytea('content').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.shipmentId, t.format] })],
);

/**
 * A shipment's customs paperwork (a commercial invoice), once per shipment and type: the carrier's
 * own where it gives one, or the one the platform draws for the sandbox and the simulated carriers.
 */
export const shipmentDocuments = pgTable(
  'shipment_documents',
  {
    shipmentId: text('shipment_id').notNull(),
    type: text('type').notNull(),
    format: text('format').notNull(),
    content: bytea('content').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.shipmentId, t.type] })],
);

/**
 * The sends of a purchase's buy at a carrier that takes no idempotency key, one row per purchase
 * (our reference): the latest attempt to start, which fences every earlier one off from sending, and
 * the latest attempt that sent its booking, when (the database's clock). A retried buy learns from it
 * whether an attempt given up on (its worker lost) ever sent, so that it books again at once when
 * none did, and otherwise waits for the carrier's processing time from that send only.
 */
export const carrierSends = pgTable('carrier_sends', {
  reference: text('reference').primaryKey(),
  attempt: integer('attempt').notNull(),
  sentAttempt: integer('sent_attempt'),
  sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
});
