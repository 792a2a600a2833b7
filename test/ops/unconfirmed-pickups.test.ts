// Pickups whose carrier answer was lost are no longer left `unconfirmed` for ever: the orphan sweep
// asks UPS (Pickup Pending Status, which lists each pending pickup with the reference it was booked
// with) and cancels a booking it made, or finds none; either way the pickup ends `failed`, as its
// customer was told. USPS reads a pickup only by its confirmation number: its lost bookings are left
// for an operator and named in `ops stuck`.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { settleUnconfirmedPickups } from '../../activities/sweep-pickups.js';
import { findStuckPickups, formatStuckPickups } from '../../admin/index.js';
import type { CarrierAdapter } from '../../carriers/index.js';
import { localDate } from '../../carriers/local-time.js';
import { createUpsAdapter } from '../../carriers/ups/adapter.js';
import { findPickup, insertAccount, insertPickup, openDatabase, type Database } from '../../db/index.js';
import { makeId } from '../../domain/index.js';
import { startUpsSimulator } from '../../tools/carrier-sim/ups/index.js';
import { ACCOUNT } from '../carriers/ups/payloads.js';

let ups: Awaited<ReturnType<typeof startUpsSimulator>>;
let database: Database;
let accountId: string;
let upsAdapter: CarrierAdapter;

const SITE = { name: 'Acme Widgets', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' };
const HOUR = 3_600_000;
/** Tomorrow in Maryland, 15:00 to 20:00 UTC (morning to afternoon there): a day UPS's pending list covers. */
const tomorrow = () => {
  const day = localDate(new Date(Date.now() + 24 * HOUR), 'America/New_York');
  return { start: `${day}T15:00:00.000Z`, end: `${day}T20:00:00.000Z` };
};

/** A pickup recorded as the API records one, whose booking answer was lost. */
async function lostBooking(carrier: string, window: { start: string; end: string }) {
  const id = makeId('pck', Date.now(), randomBytes(10));
  await insertPickup(database.db, {
    id,
    accountId,
    livemode: true,
    carrier,
    status: 'unconfirmed',
    confirmation: '',
    address: SITE,
    windowStart: new Date(window.start),
    windowEnd: new Date(window.end),
    shipmentIds: [],
    createdAt: new Date(Date.now() - 10 * 60_000),
  });
  return id;
}

const adapters = (carrier: string): CarrierAdapter => {
  if (carrier === 'ups') return upsAdapter;
  // A carrier without a lookup by our reference, as USPS is.
  return { ...upsAdapter, definition: { ...upsAdapter.definition, code: carrier }, findPickup: undefined };
};

beforeAll(async () => {
  ups = await startUpsSimulator({ accountNumber: ACCOUNT });
  upsAdapter = createUpsAdapter({ baseUrl: ups.url, credentials: { CLIENT_ID: 'sim-client-id', CLIENT_SECRET: 'sim-client-secret', ACCOUNT_NUMBER: ACCOUNT, PICKUP_PHONE: '4105551234' } });
  database = openDatabase(inject('databaseUrl'), { max: 2 });
  accountId = makeId('acc', Date.now(), randomBytes(10));
  await insertAccount(database.db, { id: accountId, name: 'Pickups Ltd', fundingSource: 'wallet', currency: 'USD', vatRateBp: 0 });
});

afterAll(async () => {
  await ups.close();
  await database.close();
});

describe('the orphan sweep and pickups whose carrier answer was lost', () => {
  it('cancels the booking UPS made (found by our reference in Pickup Pending Status) and fails the pickup', async () => {
    const window = tomorrow();
    const booked = await lostBooking('ups', window);
    // UPS booked it; our side never heard back.
    const { confirmation } = await upsAdapter.schedulePickup!({ reference: booked, address: SITE, window, parcels: { count: 1, totalWeightG: 1000, serviceCodes: ['ups_ground'] } });
    const notBooked = await lostBooking('ups', window);
    const usps = await lostBooking('usps', window);

    const { settled, left } = await settleUnconfirmedPickups(database.db, adapters, { olderThanMs: 2 * 60_000, accountId });
    expect(settled).toEqual(
      expect.arrayContaining([
        { pickup_id: booked, carrier: 'ups', outcome: 'cancelled_at_carrier', confirmation },
        { pickup_id: notBooked, carrier: 'ups', outcome: 'not_booked', confirmation: null },
      ]),
    );
    expect(ups.sim.pickups.get(confirmation)?.cancelled).toBe(true);
    expect(ups.sim.log.map((l) => l.operation)).toContain('pickup_pending');
    expect((await findPickup(database.db, booked))?.status).toBe('failed');
    expect((await findPickup(database.db, notBooked))?.status).toBe('failed');

    // The one the carrier cannot be asked about stays, named for an operator.
    expect(left).toEqual(expect.arrayContaining([expect.objectContaining({ pickup_id: usps, carrier: 'usps' })]));
    expect((await findPickup(database.db, usps))?.status).toBe('unconfirmed');
    const stuck = await findStuckPickups(database.db, { olderThanMs: 2 * 60_000, accountId });
    expect(stuck.map((p) => p.pickup_id)).toEqual([usps]);
    expect(formatStuckPickups(stuck)).toContain(`${usps}  pickup unconfirmed`);
    expect(formatStuckPickups(stuck)).toContain('ask USPS whether a pickup was booked');
  });

  it('leaves a UPS booking for a later day until UPS can tell (its pending list holds today and tomorrow)', async () => {
    const later = new Date(Date.now() + 5 * 24 * HOUR).toISOString().slice(0, 10);
    const id = await lostBooking('ups', { start: `${later}T14:00:00.000Z`, end: `${later}T20:00:00.000Z` });
    const { left } = await settleUnconfirmedPickups(database.db, adapters, { olderThanMs: 2 * 60_000, accountId });
    expect(left).toEqual(expect.arrayContaining([expect.objectContaining({ pickup_id: id, carrier: 'ups' })]));
    expect((await findPickup(database.db, id))?.status).toBe('unconfirmed');
  });
});
