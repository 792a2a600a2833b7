import { sql } from 'drizzle-orm';
import type { ErrorCode } from '../domain/index.js';
import {
  bigint,
  bigserial,
  boolean,
  customType,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

// Real carriers' labels as bought and carriers' quoted prices (files of their own, to keep this one
// short); drizzle sees them here too.
export { carrierLabels, carrierSends, labelFiles, shipmentDocuments } from './schema-labels.js';
export { quotes } from './schema-quotes.js';
export { addresses } from './schema-addresses.js';

const money = (name: string) => bigint(name, { mode: 'number' });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  fundingSource: text('funding_source').notNull(),
  currency: text('currency').notNull(),
  /** VAT rate in basis points of a percent (20% = 2000). */
  vatRateBp: integer('vat_rate_bp').notNull(),
  creditLimit: money('credit_limit'),
  lowBalanceThreshold: money('low_balance_threshold'),
  apiEnabled: boolean('api_enabled').notNull().default(false),
  /** When the account holder asked for API access in the portal (spec §1: enabled after review). */
  apiAccessRequestedAt: ts('api_access_requested_at'),
  apiEnabledAt: ts('api_enabled_at'),
  /** Sum of the account's ledger entries, kept in the same transaction as each entry. */
  balance: money('balance').notNull().default(0),
  /** Holds neither captured nor released. */
  pending: money('pending').notNull().default(0),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    livemode: boolean('livemode').notNull(),
    /** SHA-256 of the whole key; the key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    scopes: text('scopes').array().notNull(),
    expiresAt: ts('expires_at'),
    allowedIps: text('allowed_ips').array(),
    rateLimitCount: integer('rate_limit_count').notNull().default(100),
    rateLimitSeconds: integer('rate_limit_seconds').notNull().default(10),
    revokedAt: ts('revoked_at'),
    /** Kept to the minute, not per request. */
    lastUsedAt: ts('last_used_at'),
    /** The key's first characters (`svc_test_AbCd`), shown in lists so a holder can tell keys apart. */
    prefix: text('prefix'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('api_keys_hash_idx').on(t.keyHash), index('api_keys_account_idx').on(t.accountId)],
);

export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    shipmentId: text('shipment_id'),
    /** topup | hold | capture | release | refund */
    kind: text('kind').notNull(),
    /** Positive magnitude; how it moves balance and pending follows from kind. */
    amount: money('amount').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    // A retried activity can never move money twice for one shipment.
    uniqueIndex('ledger_shipment_kind_idx')
      .on(t.shipmentId, t.kind)
      .where(sql`${t.shipmentId} is not null`),
    index('ledger_account_idx').on(t.accountId),
  ],
);

export const shipments = pgTable(
  'shipments',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    livemode: boolean('livemode').notNull(),
    status: text('status').notNull(),
    reference: text('reference'),
    serviceCode: text('service_code').notNull(),
    carrier: text('carrier'),
    serviceName: text('service_name'),
    fromAddress: jsonb('from_address').notNull(),
    toAddress: jsonb('to_address').notNull(),
    parcel: jsonb('parcel').notNull(),
    priceNet: money('price_net'),
    priceVat: money('price_vat'),
    priceGross: money('price_gross'),
    currency: text('currency').notNull(),
    chargedTo: text('charged_to').notNull(),
    trackingNumber: text('tracking_number'),
    trackingStatus: text('tracking_status'),
    failureCode: text('failure_code').$type<ErrorCode>(),
    failureMessage: text('failure_message'),
    /** Why a void was refused, kept visible on the shipment. */
    lastVoidError: text('last_void_error'),
    /** The batch the shipment was bought in (null outside one), and its place there (item order). */
    batchId: text('batch_id'),
    batchIndex: integer('batch_index'),
    /** A return label (`is_return`), its options and customs as the purchase gave them, and the shipment it returns. */
    isReturn: boolean('is_return').notNull().default(false),
    options: jsonb('options'),
    customs: jsonb('customs'),
    returnOf: text('return_of'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('shipments_account_idx').on(t.accountId, t.livemode, t.id),
    index('shipments_tracking_idx').on(t.trackingNumber),
    index('shipments_reference_idx').on(t.accountId, t.livemode, t.reference),
    // The sweep's every minute: the few shipments a purchase or a void is under way on.
    index('shipments_unsettled_idx').on(t.updatedAt).where(sql`${t.status} in ('pending', 'voiding')`),
    // A batch's items in item order; the partial index stays as small as the batches.
    uniqueIndex('shipments_batch_idx').on(t.batchId, t.batchIndex).where(sql`${t.batchId} is not null`),
  ],
);

/**
 * A batch of purchases (contract: Batches). Its counts are its items' statuses, counted when read;
 * the merged label file is stored once, when the batch completes.
 */
export const batches = pgTable(
  'batches',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull().references(() => accounts.id),
    livemode: boolean('livemode').notNull(),
    /** processing | completed */
    status: text('status').notNull(),
    labelFormat: text('label_format').notNull(),
    total: integer('total').notNull(),
    labelContentType: text('label_content_type'),
    labelContent: bytea('label_content'),
    /**
     * The items whose labels the stored merged file was made from, in item order (null before it is
     * made): the file is served only while these are exactly the items with a label now.
     */
    labelShipmentIds: text('label_shipment_ids').array(),
    createdAt: ts('created_at').notNull().defaultNow(),
    completedAt: ts('completed_at'),
  },
  (t) => [index('batches_account_idx').on(t.accountId, t.livemode, t.id)],
);
export type BatchRow = typeof batches.$inferSelect;

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: text('account_id').notNull(),
    livemode: boolean('livemode').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    /** The shipment bound to the key, for purchases: every retry drives the same workflow. */
    shipmentId: text('shipment_id'),
    /** The batch bound to the key, for batches: a retry answers that batch, never a second one. */
    batchId: text('batch_id'),
    responseStatus: integer('response_status'),
    /** `json`, not `jsonb`: a replay answers the first answer's keys in their order (jsonb sorts them). */
    responseBody: json('response_body'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.livemode, t.key] })],
);

export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    livemode: boolean('livemode').notNull(),
    type: text('type').notNull(),
    shipmentId: text('shipment_id'),
    data: jsonb('data').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('events_account_idx').on(t.accountId, t.livemode, t.id)],
);

export const trackingEvents = pgTable(
  'tracking_events',
  {
    id: text('id').primaryKey(),
    shipmentId: text('shipment_id').notNull(),
    carrierScanId: text('carrier_scan_id').notNull(),
    occurredAt: ts('occurred_at').notNull(),
    status: text('status').notNull(),
    description: text('description').notNull(),
    location: jsonb('location'),
    /** The carrier's own status code of the scan, as it sent it; null when it sends none. */
    carrierCode: text('carrier_code'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('tracking_scan_idx').on(t.shipmentId, t.carrierScanId)],
);

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type ShipmentRow = typeof shipments.$inferSelect;
export type EventRow = typeof events.$inferSelect;

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    livemode: boolean('livemode').notNull(),
    url: text('url').notNull(),
    /** Event types subscribed to; null means all. */
    events: text('events').array(),
    /** The signing secret, encrypted at rest (AES-256-GCM under a configured key). */
    secretCiphertext: text('secret_ciphertext').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [index('webhook_endpoints_account_idx').on(t.accountId, t.livemode, t.id)],
);

/** One row per delivery attempt of an event to an endpoint. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    attempt: integer('attempt').notNull(),
    /** succeeded | failed (this attempt) */
    outcome: text('outcome').notNull(),
    statusCode: integer('status_code'),
    error: text('error'),
    latencyMs: integer('latency_ms'),
    /** Set on the last attempt of a delivery that gave up. */
    final: boolean('final').notNull().default(false),
    attemptedAt: ts('attempted_at').notNull(),
  },
  (t) => [
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.id),
    uniqueIndex('webhook_deliveries_attempt_idx').on(t.eventId, t.endpointId, t.attempt),
  ],
);

/**
 * Rate-limit state per API key (and per client address, `ip:<addr>`, and per carrier's tracking share,
 * `carrier-<code>-tracking`): the times of the requests
 * admitted within the last window, oldest first, at most the allowance. `tat` is the time of the
 * last decision that admitted one (it held the GCRA state of earlier builds).
 */
export const rateLimits = pgTable('rate_limits', {
  keyId: text('key_id').primaryKey(),
  tat: timestamp('tat', { withTimezone: true, mode: 'date', precision: 6 }).notNull(),
  admitted: timestamp('admitted', { withTimezone: true, mode: 'date', precision: 6 }).array().notNull().default(sql`'{}'`),
});
