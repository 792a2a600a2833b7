/**
 * The activities room's door: each group's factory and its type (workflows import the types only;
 * the workers build the factories once with their dependencies).
 */
export { createCarrierActivities } from './carriers.js';
export type { CarrierActivities } from './carriers.js';
export { failFastOnBadData } from './fail-fast.js';
export { BackgroundRenders } from './labels.js';
export { createLedgerActivities } from './ledger.js';
export type { LedgerActivities } from './ledger.js';
export { createWorkerMetrics } from './metrics.js';
export type { WorkerMetrics } from './metrics.js';
export { createPaymentActivities } from './payments.js';
export type { PaymentActivities } from './payments.js';
export { createPurchaseActivities } from './purchase.js';
export type { PurchaseActivities } from './purchase.js';
export { createShipmentActivities } from './shipments.js';
export type { ShipmentActivities } from './shipments.js';
export { createSweepActivities } from './sweep.js';
export type { SweepActivities } from './sweep.js';
export { createWebhookFanout } from './webhook-fanout.js';
export { createWebhookActivities } from './webhooks.js';
export type { DeliveryOutcome, WebhookActivities } from './webhooks.js';
