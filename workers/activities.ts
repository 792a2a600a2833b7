import type { Client } from '@temporalio/client';
import { BackgroundRenders, createBatchActivities, createBatchFileOnVoid, createBatchLabelActivities, createCarrierActivities, createLedgerActivities, createPaymentActivities, createPurchaseActivities, createShipmentActivities, createSweepActivities, createTrackingAdmission, failFastOnBadData, createWebhookFanout, type WorkerMetrics } from '../activities/index.js';
import type { CarrierRegistry, SendLedger } from '../carriers/index.js';
import { createPostgresLabelStore, clearCarrierSend, fenceCarrierSends, markCarrierSend, takeRateLimitToken, hasCarrierZpl, storeCarrierLabel, storeCarrierZpl, storedCarrierPurchase, storeShipmentDocument, type Db, type ShipmentRow } from '../db/index.js';
import type { CarrierLabelSink } from '../activities/index.js';
import type { Config } from '../config/index.js';
import { splitCarrierRate, taskQueues } from '../contract/index.js';
import { allLabelFiles } from '../labels/index.js';

/** Where the registry is built (runtime/): re-exported for the workers' callers. */
export { carrierRegistryFor } from '../runtime/index.js';

/**
 * Every activity of the `shipments` queue, built once from its dependencies. With a Temporal client,
 * each stored event fans out to its webhook deliveries; without one, events are only stored.
 */
export function shipmentQueueActivities(deps: {
  db: Db;
  config: Config;
  registry: CarrierRegistry;
  client?: Client;
  metrics?: WorkerMetrics;
  /** Where the label renders started by purchases run; the worker drains it before it stops. */
  renders?: BackgroundRenders;
}) {
  const { db, config, registry, client, metrics } = deps;
  const onEventRecorded = client && eventHooks({ db, client, queuePrefix: config.taskQueuePrefix });
  const store = createPostgresLabelStore(db);
  const carrierName = (code: string) => registry.carrier(code)?.name ?? code;
  const renders = deps.renders ?? new BackgroundRenders();
  const renderLabels = (row: ShipmentRow & { trackingNumber: string }) => renders.start(row.id, () => allLabelFiles(store, row, carrierName));
  return {
    // Our own database steps retry until the database answers, but never on data it refuses.
    ...failFastOnBadData(createShipmentActivities({ db, onEventRecorded, metrics })),
    ...failFastOnBadData(createPurchaseActivities({ db, catalog: registry, onEventRecorded, metrics, renderLabels })),
    ...failFastOnBadData(createLedgerActivities({ db })),
    ...createPaymentActivities({ processorUrl: config.cardProcessorUrl }),
    ...(client ? createSweepActivities({ db, client, queuePrefix: config.taskQueuePrefix, adapter: registry.adapter }) : {}),
    // Sandbox carrier calls touch no carrier, so they run here rather than on a rate-limited queue;
    // the tracking loop's polls run here too, as local activities, under the carrier's tracking rate.
    ...createCarrierActivities({ adapter: registry.adapter, metrics, labels: carrierLabelSink(db), sends: carrierSendLedger(db), admitTracking: trackingAdmission({ db, config, registry }) }),
  };
}

/**
 * A carrier's fleet-wide rate (CARRIER_<CODE>_RPS, else its definition's) split between purchases
 * and tracking (contract: splitCarrierRate); 0 for a carrier the registry does not know.
 */
export function carrierRate(config: Config, registry: CarrierRegistry, code: string): { purchases: number; tracking: number } {
  return splitCarrierRate(config.carrierRateLimits[code] ?? registry.carrier(code)?.rateLimitPerSecond ?? 0, config.carrierTrackingSharePercent);
}

/**
 * The carrier's tracking share of its rate, the one its tracking queue's workers enforce
 * (workers/run.ts), held in PostgreSQL under the name of that queue: one allowance per carrier for
 * every worker of the fleet.
 */
function trackingAdmission(deps: { db: Db; config: Config; registry: CarrierRegistry }) {
  const { db, config, registry } = deps;
  const queues = taskQueues(config.taskQueuePrefix);
  return createTrackingAdmission({
    take: (keyId, policy) => takeRateLimitToken(db, keyId, policy),
    perSecond: (code) => carrierRate(config, registry, code).tracking,
    keyOf: (code) => queues.carrierTracking(code),
  });
}

/**
 * What follows each stored event: its webhook deliveries, and for a batch item's void, its batch's
 * merged label file made again without it.
 */
function eventHooks(deps: { db: Db; client: Client; queuePrefix: string }) {
  const fanOut = createWebhookFanout({ db: deps.db, temporal: deps.client, queuePrefix: deps.queuePrefix });
  const batchFileOnVoid = createBatchFileOnVoid(deps);
  return async (event: Parameters<typeof fanOut>[0] & { shipmentId?: string | null }) => {
    await fanOut(event);
    await batchFileOnVoid(event);
  };
}

/** The carrier activities' ledger of a purchase's sends (one attempt's view): PostgreSQL, keyed by our reference. */
export function carrierSendLedger(db: Db): (reference: string, attempt: number) => SendLedger {
  return (reference, attempt) => ({
    start: (unknownSince) => fenceCarrierSends(db, reference, attempt, unknownSince),
    markSend: () => markCarrierSend(db, reference, attempt),
    answered: () => clearCarrierSend(db, reference, attempt),
  });
}

/** The carrier activities' store of real carriers' labels: PostgreSQL, keyed by shipment id. */
export function carrierLabelSink(db: Db): CarrierLabelSink {
  return {
    store: ({ shipmentId, carrier, label, billed, trackingNumber, carrierShipmentId }) =>
      storeCarrierLabel(db, { shipmentId, carrier, format: label.format, content: Buffer.from(label.contentBase64, 'base64'), billed, trackingNumber, carrierShipmentId }),
    storedPurchase: (shipmentId) => storedCarrierPurchase(db, shipmentId),
    hasZpl: (shipmentId) => hasCarrierZpl(db, shipmentId),
    storeZpl: (shipmentId, zpl) => storeCarrierZpl(db, shipmentId, Buffer.from(zpl.contentBase64, 'base64')),
    storeDocument: async (shipmentId, document) => {
      await storeShipmentDocument(db, { shipmentId, type: document.type, format: document.format, content: Buffer.from(document.contentBase64, 'base64') });
    },
  };
}

/** The `batches` queue's activities: a batch's steps, which start its items' purchases with the client, and its merged file's. */
export function batchQueueActivities(deps: { db: Db; registry: CarrierRegistry; client: Client }) {
  const carrierName = (code: string) => deps.registry.carrier(code)?.name ?? code;
  const store = createPostgresLabelStore(deps.db);
  return { ...createBatchActivities({ db: deps.db, client: deps.client, store, carrierName }), ...createBatchLabelActivities({ db: deps.db, store, carrierName }) };
}
