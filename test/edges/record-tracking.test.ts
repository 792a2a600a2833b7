// The tracking step's one activity, recordTracking, alone against the run's PostgreSQL: the scans and
// then the workflow's writes in its order, in one transaction; a retry stores nothing twice and fans
// every event out again; data the store refuses, or a shipment with no row, leaves nothing written.
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createShipmentActivities, failFastOnBadData, type EventToStore, type ScanToStore, type TrackingWrite } from '../../activities/index.js';
import { findShipment, insertAccount, insertShipment, listEvents, openDatabase, scansOf, type Database } from '../../db/index.js';
import { CODE, makeId, type EventType } from '../../domain/index.js';
import { address, parcel } from '../support/stack.js';

let database: Database;
let accountId: string;
beforeAll(async () => {
  database = openDatabase(inject('databaseUrl'), { max: 2 });
  accountId = makeId('acc', Date.now(), randomBytes(16));
  await insertAccount(database.db, { id: accountId, name: 'Tracking Ltd', fundingSource: 'wallet', currency: 'GBP', vatRateBp: 2000 });
});
afterAll(async () => {
  await database?.close();
});

/** A live label bought and not scanned yet, straight in the database. */
async function boughtShipment(): Promise<string> {
  const id = makeId('shp', Date.now(), randomBytes(16));
  await insertShipment(database.db, {
    id,
    accountId,
    livemode: true,
    status: 'purchased',
    serviceCode: 'acme_ground',
    carrier: 'acme',
    fromAddress: address(),
    toAddress: address(),
    parcel: parcel(),
    currency: 'GBP',
    chargedTo: 'wallet',
    trackingNumber: `ACME${randomBytes(5).toString('hex')}`,
    trackingStatus: 'label_created',
  });
  return id;
}

/** The activities as the worker builds them, each event's fan-out recorded. */
function activities() {
  const fannedOut: string[] = [];
  const acts = failFastOnBadData(
    createShipmentActivities({
      db: database.db,
      onEventRecorded: async (e) => {
        fannedOut.push(e.id);
      },
    }),
  );
  return { acts, fannedOut };
}

const t0 = Date.parse('2026-03-01T09:00:00Z');
const scanOf = (id: string, status: ScanToStore['status'], at: number, i: number, description = `Scan ${id}`): ScanToStore => ({
  id,
  occurredAt: new Date(at).toISOString(),
  status,
  description,
  location: { city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' },
  trackingEventId: makeId('trk', t0 + i, randomBytes(16)),
});

/** A pickup then a delivery in one step, as the workflow plans it: each event at t0 plus its place. */
function journey(shipmentId: string, description?: string) {
  const scans = [scanOf('pickup', 'in_transit', t0 - 3_600_000, 0, description), scanOf('drop', 'delivered', t0 - 60_000, 1)];
  let place = 0;
  const event = (type: EventType, object?: unknown): TrackingWrite => {
    const at = t0 + place++;
    const e: EventToStore = { id: makeId('evt', at, randomBytes(16)), type, accountId, livemode: true, shipmentId, createdAt: new Date(at).toISOString() };
    return { event: object === undefined ? e : { ...e, object } };
  };
  const writes: TrackingWrite[] = [
    { mark: { trackingStatus: 'in_transit', status: 'in_transit' } },
    event('tracking.updated', { status: 'in_transit', event: { id: scans[0].trackingEventId } }),
    event('shipment.in_transit'),
    { mark: { trackingStatus: 'delivered', status: 'delivered' } },
    event('tracking.updated', { status: 'delivered', event: { id: scans[1].trackingEventId } }),
    event('shipment.delivered'),
  ];
  const events = writes.flatMap((w) => ('event' in w ? [w.event] : []));
  return { scans, writes, events };
}

const eventsOf = async (shipmentId: string) => (await listEvents(database.db, { accountId, livemode: true, shipmentId, limit: 100 })).rows;

describe('recordTracking', () => {
  it('stores the scans, then the marks and events in their order; a retry stores nothing twice and fans out again', async () => {
    const shipmentId = await boughtShipment();
    const { scans, writes, events } = journey(shipmentId);
    const { acts, fannedOut } = activities();

    await acts.recordTracking({ shipmentId, scans, writes });
    const rows = await scansOf(database.db, shipmentId);
    expect(rows.map((r) => [r.id, r.carrierScanId, r.status])).toEqual(scans.map((s) => [s.trackingEventId, s.id, s.status]));
    expect(await findShipment(database.db, shipmentId)).toMatchObject({ status: 'delivered', trackingStatus: 'delivered' });
    // Listed newest first by id: the order they were made in, reversed; each at its own time.
    const stored = await eventsOf(shipmentId);
    expect(stored.map((e) => e.id)).toEqual(events.map((e) => e.id).reverse());
    expect(stored.map((e) => e.createdAt.toISOString())).toEqual(events.map((e) => e.createdAt).reverse());
    // A status event without an object carries the shipment as the writes before it left it.
    const payload = (type: string) => (stored.find((e) => e.type === type)!.data as { object: { status: string; tracking: { status: string } } }).object;
    expect(payload('shipment.in_transit')).toMatchObject({ id: shipmentId, status: 'in_transit' });
    expect(payload('shipment.delivered')).toMatchObject({ id: shipmentId, status: 'delivered' });
    expect(payload('tracking.updated')).toEqual({ status: 'delivered', event: { id: scans[1].trackingEventId } });
    expect(fannedOut).toEqual(events.map((e) => e.id));

    // The same step again (a retry after the commit, its answer lost): nothing twice, nothing changed,
    // and every event fanned out again (the fan-out starts each delivery once).
    await acts.recordTracking({ shipmentId, scans, writes });
    expect(await scansOf(database.db, shipmentId)).toEqual(rows);
    expect(await eventsOf(shipmentId)).toEqual(stored);
    expect(await findShipment(database.db, shipmentId)).toMatchObject({ status: 'delivered', trackingStatus: 'delivered' });
    expect(fannedOut).toEqual([...events.map((e) => e.id), ...events.map((e) => e.id)]);
  });

  it('a scan the store refuses fails the step at once as invalid_data, with nothing written or fanned out', async () => {
    const shipmentId = await boughtShipment();
    // A NUL in the first scan: its row is the first write; its event's object would be another.
    const { scans, writes } = journey(shipmentId, 'Depot\u0000');
    const { acts, fannedOut } = activities();
    const failed = await acts.recordTracking({ shipmentId, scans, writes }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(ApplicationFailure);
    expect(failed).toMatchObject({ type: CODE.invalid_data, nonRetryable: true });
    expect((failed as Error).message).toMatch(/^recordTracking: the data cannot be stored \(.*UTF8.*\)$/);
    expect(await scansOf(database.db, shipmentId)).toEqual([]);
    expect(await eventsOf(shipmentId)).toEqual([]);
    expect(await findShipment(database.db, shipmentId)).toMatchObject({ status: 'purchased', trackingStatus: 'label_created' });
    expect(fannedOut).toEqual([]);
  });

  it('a shipment with no row fails the step for good, its scans rolled back', async () => {
    const shipmentId = makeId('shp', Date.now(), randomBytes(16));
    const { scans, writes } = journey(shipmentId);
    const { acts, fannedOut } = activities();
    await expect(acts.recordTracking({ shipmentId, scans, writes })).rejects.toMatchObject({ type: CODE.shipment_missing, nonRetryable: true });
    expect(await scansOf(database.db, shipmentId)).toEqual([]);
    expect(fannedOut).toEqual([]);
  });
});
