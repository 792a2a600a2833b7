import { randomBytes } from 'node:crypto';
import { upsDefinition } from '../../carriers/ups/index.js';
import { SA, SHIPMENT_WORKFLOW, shipmentWorkflowId, taskQueues, type ShipmentWorkflowInput } from '../../contract/index.js';
import { schema } from '../../db/index.js';
import { makeId } from '../../domain/index.js';
import { post, type TrackingStack } from './tracking-stack.js';

/** The bench's parcels per carrier, each with the service a purchase would have bought. */
export const BENCH_SERVICES: Record<string, { code: string; name: string }> = {
  acme: { code: 'acme_ground', name: 'Acme Ground' },
  swiftpost: { code: 'swiftpost_standard', name: 'SwiftPost Standard' },
  ups: { code: 'ups_ground', name: 'UPS Ground' },
  fedex: { code: 'fedex_ground', name: 'FedEx Ground' },
};

const FROM = { name: 'Bench Sender', line1: '1 High Street', city: 'London', postcode: 'EC1A 1BB', country: 'GB' };
const TO = { name: 'Bench Recipient', line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' };
const PARCEL = { weight_g: 1_200, length_mm: 300, width_mm: 200, height_mm: 100 };

export interface BenchParcel {
  shipmentId: string;
  carrier: string;
  trackingNumber: string;
}

/** Starts so many shipment workflows at once: enough to keep the server busy, few enough to leave it room. */
const STARTS_IN_FLIGHT = 32;
const CHUNK = 1_000;

/**
 * Puts `count` purchased parcels in flight, spread evenly over `carriers`, in chunks: the simulator
 * makes their labels and their week (`POST /_sim/parcels`), the read model gets their shipment rows
 * as a capture leaves them, and each gets the workflow a purchase continues into, started directly in
 * its tracking loop (`resume`), with the purchase's tracking settings and the bench's time scale.
 */
export async function startParcels(o: {
  stack: TrackingStack;
  accountId: string;
  count: number;
  carriers: readonly string[];
  scale: number;
  log: (line: string) => void;
}): Promise<BenchParcel[]> {
  const parcels: BenchParcel[] = [];
  for (let done = 0; done < o.count; done += CHUNK) {
    const size = Math.min(CHUNK, o.count - done);
    const start = Date.now();
    const chunk: BenchParcel[] = [];
    for (const [i, carrier] of o.carriers.entries()) {
      const share = Math.floor(size / o.carriers.length) + (i < size % o.carriers.length ? 1 : 0);
      if (!share) continue;
      const made = await post(`${o.stack.simUrl}/_sim/parcels`, { carrier, count: share, scale: o.scale, seed: done + i + 1, start_ms: start });
      for (const trackingNumber of made.tracking_numbers as string[]) {
        chunk.push({ shipmentId: makeId('shp', Date.now(), randomBytes(16)), carrier, trackingNumber });
      }
    }
    await insertRows(o.stack, o.accountId, chunk);
    await startWorkflows(o.stack, o.accountId, chunk, o.scale);
    parcels.push(...chunk);
    o.log(`${parcels.length} of ${o.count} parcels in flight`);
  }
  return parcels;
}

async function insertRows(stack: TrackingStack, accountId: string, chunk: BenchParcel[]): Promise<void> {
  for (let i = 0; i < chunk.length; i += 250) {
    await stack.database.db.insert(schema.shipments).values(
      chunk.slice(i, i + 250).map((p) => ({
        id: p.shipmentId,
        accountId,
        livemode: true,
        status: 'purchased',
        reference: null,
        serviceCode: BENCH_SERVICES[p.carrier].code,
        carrier: p.carrier,
        serviceName: BENCH_SERVICES[p.carrier].name,
        fromAddress: FROM,
        toAddress: TO,
        parcel: PARCEL,
        priceNet: 1000,
        priceVat: 200,
        priceGross: 1200,
        currency: 'GBP',
        chargedTo: 'wallet',
        trackingNumber: p.trackingNumber,
        trackingStatus: 'label_created',
      })),
    );
  }
}

async function startWorkflows(stack: TrackingStack, accountId: string, chunk: BenchParcel[], scale: number): Promise<void> {
  const queue = [...chunk];
  const config = stack.config;
  const lifetimeMs = upsDefinition.capabilities.trackingSubscription!.lifetimeMs;
  const startOne = async (p: BenchParcel) => {
    const input: ShipmentWorkflowInput = {
      shipmentId: p.shipmentId,
      accountId,
      livemode: true,
      fundingSource: 'wallet',
      currency: 'GBP',
      vatRateBp: 2000,
      serviceCode: BENCH_SERVICES[p.carrier].code,
      from: FROM,
      to: TO,
      parcel: PARCEL,
      reference: null,
      queuePrefix: config.taskQueuePrefix,
      purchaseDeadlineMs: config.purchaseDeadlineMs,
      strayLabelSettleMs: config.strayLabelSettleMs,
      // As purchaseSettings (api/services/purchase.ts) makes them, UPS Track Alert included, on the bench's clock.
      tracking: { minPollMs: config.trackingPollMinMs, maxPollMs: config.trackingPollMaxMs, push: { ups: { lifetimeMs } }, timeScale: scale },
      resume: { status: 'purchased', carrier: p.carrier, trackingNumber: p.trackingNumber, seenScanIds: [], pollMs: config.trackingPollMinMs, known: false },
    };
    await stack.temporal.workflow.start(SHIPMENT_WORKFLOW, {
      workflowId: shipmentWorkflowId(p.shipmentId),
      // Where a purchase's shipment tracks once its first wait is over (workflows/tracking.ts).
      taskQueue: taskQueues(config.taskQueuePrefix).tracking,
      args: [input],
      typedSearchAttributes: [
        { key: SA.ShipmentStatus, value: 'purchased' },
        { key: SA.Carrier, value: p.carrier },
        { key: SA.TrackingNumber, value: p.trackingNumber },
        { key: SA.AccountId, value: accountId },
        { key: SA.Livemode, value: true },
      ],
    });
  };
  await Promise.all(
    Array.from({ length: STARTS_IN_FLIGHT }, async () => {
      for (let p = queue.shift(); p; p = queue.shift()) await startOne(p);
    }),
  );
}
