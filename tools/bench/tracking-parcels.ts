import { randomBytes } from 'node:crypto';
import { upsDefinition } from '../../carriers/ups/index.js';
import { SA, SHIPMENT_WORKFLOW, SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS, shipmentWorkflowId, taskQueues, type LatestScan, type ShipmentWorkflowInput } from '../../contract/index.js';
import { schema } from '../../db/index.js';
import { applyScan, makeId, nextPollMs, trackingPhase, type ScanStatus, type ShipmentStatus } from '../../domain/index.js';
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
  /** Spread parcels (`spread`): the scans the parcel already had when its tracking started. */
  past?: Array<{ id: string; status: ScanStatus; occurred_at: string }>;
  /** Spread parcels: when its label was made (the clock of the run). */
  createdAt?: number;
}

/** The carriers whose scans the bench's parcels get pushed rather than polled (UPS Track Alert). */
const PUSHED = new Set(['ups']);

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
  /** Parcels somewhere in their week, as a merchant's in flight are, rather than all new. */
  spread?: boolean;
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
      const made = await post(`${o.stack.simUrl}/_sim/parcels`, { carrier, count: share, scale: o.scale, seed: done + i + 1, start_ms: start, ...(o.spread ? { spread: true } : {}) });
      if (o.spread) {
        for (const p of made.parcels as Array<{ tracking_number: string; created_at: string; scans: NonNullable<BenchParcel['past']> }>) {
          chunk.push({ shipmentId: makeId('shp', Date.now(), randomBytes(16)), carrier, trackingNumber: p.tracking_number, past: p.scans, createdAt: Date.parse(p.created_at) });
        }
      } else {
        for (const trackingNumber of made.tracking_numbers as string[]) {
          chunk.push({ shipmentId: makeId('shp', Date.now(), randomBytes(16)), carrier, trackingNumber });
        }
      }
    }
    if (o.spread) await scansSoFar(o.stack, chunk);
    await insertRows(o.stack, o.accountId, chunk);
    await startWorkflows(o.stack, o.accountId, chunk, o.scale);
    parcels.push(...chunk);
    o.log(`${parcels.length} of ${o.count} parcels in flight`);
  }
  return parcels;
}

/**
 * Each spread parcel's scans so far as its carrier's adapter reads them, so that the ids marked seen
 * are the ones its polls will return (FedEx gives its scans no ids: its adapter makes them from the
 * event's fields, not the simulator's).
 */
async function scansSoFar(stack: TrackingStack, chunk: BenchParcel[]): Promise<void> {
  const queue = [...chunk];
  await Promise.all(
    Array.from({ length: STARTS_IN_FLIGHT }, async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        const scans = await stack.carriers
          .adapter(p.carrier, true)
          .scans(p.trackingNumber)
          .catch((err: unknown) => {
            // A carrier may answer "not found" for a label it has not scanned yet.
            if (p.past?.length === 0) return [];
            throw err;
          });
        p.past = scans.map((s) => ({ id: s.id, status: s.status, occurred_at: s.occurredAt }));
      }
    }),
  );
}

async function insertRows(stack: TrackingStack, accountId: string, chunk: BenchParcel[]): Promise<void> {
  for (let i = 0; i < chunk.length; i += 250) {
    await stack.database.db.insert(schema.shipments).values(
      chunk.slice(i, i + 250).map((p) => ({
        id: p.shipmentId,
        accountId,
        livemode: true,
        status: statusOf(p),
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
        trackingStatus: latestOf(p)?.status ?? 'label_created',
      })),
    );
  }
}

async function startWorkflows(stack: TrackingStack, accountId: string, chunk: BenchParcel[], scale: number): Promise<void> {
  const queue = [...chunk];
  const config = stack.config;
  const lifetimeMs = upsDefinition.capabilities.trackingSubscription!.lifetimeMs;
  const startOne = async (p: BenchParcel) => {
    const resume = p.past ? spreadResume(p, config.trackingPollMinMs) : undefined;
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
      resume: resume ?? { status: 'purchased', carrier: p.carrier, trackingNumber: p.trackingNumber, seenScanIds: [], pollMs: config.trackingPollMinMs, known: false },
    };
    const bounds = { minMs: config.trackingPollMinMs, maxMs: config.trackingPollMaxMs };
    // A spread parcel that is polled: its first poll at a point drawn evenly over the wait its
    // schedule gives it now, as if it had been polled all along. Its workflow runs its first task
    // then (Temporal's start delay) and polls at once (`pollDue`); a pushed one subscribes now.
    const startDelay = resume && !PUSHED.has(p.carrier) ? Math.round((Math.random() * firstWaitMs(resume, bounds, scale)) / scale) : 0;
    if (startDelay > 0) input.resume = { ...input.resume!, pollDue: true };
    await stack.temporal.workflow.start(SHIPMENT_WORKFLOW, {
      ...(startDelay > 0 ? { startDelay } : {}),
      workflowId: shipmentWorkflowId(p.shipmentId),
      // Where a purchase's shipment tracks once its first wait is over (workflows/tracking.ts).
      taskQueue: taskQueues(config.taskQueuePrefix).tracking,
      workflowTaskTimeout: SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
      args: [input],
      typedSearchAttributes: [
        { key: SA.ShipmentStatus, value: input.resume!.status },
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

const latestOf = (p: BenchParcel) => p.past?.[p.past.length - 1];
/** The shipment's status after the parcel's scans so far, as the tracking loop would have moved it. */
const statusOf = (p: BenchParcel): ShipmentStatus => (p.past ?? []).reduce<ShipmentStatus>((status, scan) => applyScan(status, scan.status), 'purchased');

/** Where a workflow that had followed a spread parcel from its purchase would be now. */
function spreadResume(p: BenchParcel, pollMs: number): NonNullable<ShipmentWorkflowInput['resume']> {
  const past = p.past ?? [];
  const latest = latestOf(p);
  const latestScan: LatestScan | undefined = latest ? { status: latest.status, occurredAt: latest.occurred_at } : undefined;
  return {
    status: statusOf(p),
    carrier: p.carrier,
    trackingNumber: p.trackingNumber,
    seenScanIds: past.map((s) => s.id),
    pollMs,
    known: past.length > 0,
    // Workflow time of its last movement: the sim's clock is the wall's, its hours already scaled.
    quietSince: latest ? Date.parse(latest.occurred_at) : (p.createdAt ?? Date.now()),
    ...(latestScan ? { latestScan } : {}),
  };
}

/** The wait, in parcel time, the tracking schedule gives a spread parcel now (workflows/tracking.ts nextWaitMs). */
function firstWaitMs(resume: NonNullable<ShipmentWorkflowInput['resume']>, bounds: { minMs: number; maxMs: number }, scale: number): number {
  const sinceMovementMs = (Date.now() - (resume.quietSince ?? Date.now())) * scale;
  return nextPollMs({ phase: trackingPhase(resume.latestScan?.status), sinceMovementMs, failures: 0, pushed: false, bounds });
}
