/**
 * The db room's door: the connection, the embedded PostgreSQL, and the queries (`fn(db, params)`,
 * one file per table or aggregate) with the row types they answer.
 */
import * as schema from './schema.js';

/** The service's own tables, for a query that needs one (the portal's are db/schema-portal.ts). */
export { schema };
export type { AccountRow, ApiKeyRow, BatchRow, ShipmentRow } from './schema.js';
export type { PickupRow, ScanFormRow } from './schema-forms.js';
export type { UserRow } from './schema-portal.js';
export { migrateDatabase, openDatabase } from './connection.js';
export type { Database, Db, Tx } from './connection.js';
export { ensureEmbeddedPostgres, runningPostmaster, startRestartablePostgres } from './embedded.js';
export type { RestartableHandle } from './embedded.js';
export {
  findAccount,
  insertAccount,
  listAccessRequests,
  listAccounts,
  listRecentlyEnabled,
  requestApiAccess,
  updateAccount,
} from './queries/accounts.js';
export { latestQuote, recordQuotes } from './queries/quotes.js';
export type { NewQuote, QuoteRow } from './queries/quotes.js';
export { findKeyByHash, generateApiKey, hashApiKey, insertApiKey, listApiKeys, revokeApiKey, touchApiKey } from './queries/api-keys.js';
export { captureFunds, checkLedger, holdFunds, InsufficientFundsError, ledgerEntriesOf, refundFunds, topUp } from './queries/ledger.js';
export {
  findOwnShipment,
  findOwnShipmentByTracking,
  findShipment,
  findShipmentByTracking,
  insertShipment,
  listShipments,
  updateShipment,
} from './queries/shipments.js';
export { claimIdempotencyKey, heldIdempotencyKey, releaseIdempotencyKey, saveIdempotentResponse } from './queries/idempotency.js';
export type { IdempotencyRow } from './queries/idempotency.js';
export { findOwnEvent, insertEvent, listEvents } from './queries/events.js';
export { clearCarrierSend, fenceCarrierSends, markCarrierSend } from './queries/carrier-sends.js';
export { carrierBilledOf, carrierLabelOf, createPostgresLabelStore, hasCarrierZpl, storeCarrierLabel, storeCarrierZpl, storedCarrierPurchase } from './queries/labels.js';
export type { LabelStore, StoredCarrierLabel } from './queries/labels.js';
export { findShipmentDocument, storeShipmentDocument } from './queries/documents.js';
export type { StoredDocument } from './queries/documents.js';
export {
  deleteWebhookEndpoint,
  deliveriesOfEvents,
  endpointsSubscribedTo,
  findOwnWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  insertWebhookEndpointWithinLimit,
  listWebhookDeliveries,
  listWebhookEndpoints,
  recordWebhookAttempt,
  undeliveredEvents,
} from './queries/webhooks.js';
export type { WebhookDeliveryRow, WebhookEndpointRow } from './queries/webhooks.js';
export { decryptWebhookSecret, encryptWebhookSecret, generateWebhookSecret } from './webhook-secrets.js';
export { scansOf } from './queries/tracking.js';
export { admittedWithinWindow, takeRateLimitToken } from './queries/rate-limits.js';
export type { RateDecision, RatePolicy } from './queries/rate-limits.js';
export { addressFingerprint, deleteOwnAddress, findOwnAddress, listAddresses, saveAddress, updateOwnAddress } from './queries/addresses.js';
export type { AddressRow } from './queries/addresses.js';
export { beginPurchase, completePurchase, failPurchase, ownPurchaseRow, recordPurchaseRequest, ShipmentMissingError } from './queries/purchases.js';
export {
  findBatch,
  findBatchItem,
  findOwnBatch,
  listBatches,
  listBatchItems,
  recordBatchRequest,
} from './queries/batches.js';
export { batchHasLabelFile, batchLabelFile, batchLabelState, completeBatch, labelledBatchItems, storeBatchLabelFile } from './queries/batch-files.js';
export type { MadeBatchFile, MergedLabelFile } from './queries/batch-files.js';
export {
  failUnstartedPurchase,
  pendingBatchItemCount,
  pendingBatchItems,
  processingBatches,
  settleStoppedPurchase,
  unsettledShipments,
  unstartedPurchases,
} from './queries/orphans.js';
export {
  deleteStaleSignInData,
  deleteWebSession,
  findUserByEmail,
  findWebSession,
  insertUser,
  insertWebSession,
  loginAttemptSucceeded,
  reserveLoginAttempt,
} from './queries/users.js';
export type { WebSession } from './queries/users.js';
export { hashPassword, verifyPassword } from './passwords.js';
export { ledgerHoldsGauge } from './metrics.js';
export {
  confirmScanForm,
  findOwnScanForm,
  findOwnShipments,
  findScanForm,
  formsOfShipments,
  insertScanForm,
  listScanForms,
  markVoidingUnlessOnForm,
  releaseScanForm,
  scanFormOfShipment,
  unconfirmedScanForms,
} from './queries/scan-forms.js';
export { accountContactEmail, findOwnPickup, findPickup, insertPickup, listPickups, markPickupCancelled, markPickupScheduled, markPickupUnsettled, recordPickup, unconfirmedPickups } from './queries/pickups.js';
export { captureIn, holdIn } from './queries/ledger.js';
