import type { Client } from '@temporalio/client';
import { createCarrierActivities } from '../activities/carriers.js';
import { createLabelActivities } from '../activities/labels/activities.js';
import { createLedgerActivities } from '../activities/ledger.js';
import { createPaymentActivities } from '../activities/payments.js';
import { createPurchaseActivities } from '../activities/purchase.js';
import { createShipmentActivities } from '../activities/shipments.js';
import { createSweepActivities } from '../activities/sweep.js';
import { failFastOnBadData } from '../activities/fail-fast.js';
import { createWebhookFanout } from '../activities/webhook-fanout.js';
import type { WorkerMetrics } from '../activities/metrics.js';
import { createCarrierRegistry, defaultCarrierBaseUrls, type CarrierRegistry } from '../carriers/index.js';
import { createPostgresLabelStore, type Db } from '../db/index.js';
import { carrierSimUrl, type Config } from '../domain/index.js';

/**
 * The carrier registry as configured: each carrier's URL, else (outside production only) its path on
 * the simulator. A live carrier never falls back to the simulator in production.
 */
export function carrierRegistryFor(config: Config): CarrierRegistry {
  const simulated = config.production ? {} : defaultCarrierBaseUrls(carrierSimUrl(config));
  return createCarrierRegistry({
    baseUrls: { ...simulated, ...config.carrierUrls },
    timeoutMs: config.carrierTimeoutMs,
    settleMs: config.carrierSettleMs,
  });
}

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
}) {
  const { db, config, registry, client, metrics } = deps;
  const onEventRecorded = client && createWebhookFanout({ db, temporal: client, queuePrefix: config.taskQueuePrefix });
  return {
    // Our own database steps retry until the database answers, but never on data it refuses.
    ...failFastOnBadData(createShipmentActivities({ db, catalog: registry, onEventRecorded, metrics })),
    ...failFastOnBadData(createPurchaseActivities({ db, catalog: registry, onEventRecorded, metrics })),
    ...failFastOnBadData(createLedgerActivities({ db })),
    ...createPaymentActivities({ processorUrl: config.cardProcessorUrl }),
    ...createLabelActivities({
      db,
      store: createPostgresLabelStore(db),
      carrierName: (code) => registry.carrier(code)?.name ?? code,
    }),
    ...(client ? createSweepActivities({ db, client }) : {}),
    // Sandbox carrier calls touch no carrier, so they run here rather than on a rate-limited queue.
    ...createCarrierActivities({ adapter: registry.adapter, metrics }),
  };
}
