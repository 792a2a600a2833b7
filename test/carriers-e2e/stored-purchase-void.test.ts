// A void takes the purchase as it was stored when it was bought (tracking number and UPS's shipment
// identification number, kept with the label in PostgreSQL), never a lookup by reference: UPS does
// not promise to find an unscanned label by reference, and a process's memory is gone after a restart.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCarrierActivities } from '../../activities/index.js';
import { createUpsAdapter } from '../../carriers/ups/adapter.js';
import { openDatabase, storedCarrierPurchase, type Database } from '../../db/index.js';
import { startUpsSimulator } from '../../tools/carrier-sim/ups/index.js';
import { carrierLabelSink } from '../../workers/activities.js';
import { ACCOUNT, PARCEL, US_FROM, US_TO } from '../carriers/ups/payloads.js';

let ups: Awaited<ReturnType<typeof startUpsSimulator>>;
let database: Database;
/** The path of each void UPS was sent, in order. */
const voids: string[] = [];

const adapter = () =>
  createUpsAdapter({ baseUrl: ups.url, credentials: { CLIENT_ID: 'sim-client-id', CLIENT_SECRET: 'sim-client-secret', ACCOUNT_NUMBER: ACCOUNT } });
const reference = () => `shp_${randomBytes(13).toString('hex')}`;

beforeAll(async () => {
  ups = await startUpsSimulator({ accountNumber: ACCOUNT });
  database = openDatabase(inject('databaseUrl'), { max: 2 });
  const respond = ups.sim.respond;
  ups.sim.respond = async (req) => {
    if (req.method === 'DELETE' && req.path.includes('/void/cancel/')) voids.push(req.path);
    return respond(req);
  };
});

afterAll(async () => {
  await ups.close();
  await database.close();
});

describe('a UPS void after a restart', () => {
  it('cancels by the ids stored with the purchase; UPS is asked nothing by reference', async () => {
    const labels = carrierLabelSink(database.db);
    const target = { carrier: 'ups', livemode: true };
    const request = { reference: reference(), serviceCode: 'ups_ground', from: US_FROM, to: US_TO, parcel: PARCEL };
    const bought = await createCarrierActivities({ adapter, labels }).buyLabel({ ...target, request });

    const stored = await storedCarrierPurchase(database.db, request.reference);
    expect(stored).toEqual({ trackingNumber: bought.trackingNumber, carrierShipmentId: expect.stringMatching(/^1Z[0-9A-Z]{16}$/) });

    // A new process: a new adapter and new activities, with nothing of the purchase in memory.
    ups.sim.log.length = 0;
    const restarted = createCarrierActivities({ adapter, labels });
    expect(await restarted.cancelLabel({ ...target, reference: request.reference })).toEqual({ kind: 'cancelled' });

    expect(voids.at(-1)).toBe(`/api/shipments/v2409/void/cancel/${stored!.carrierShipmentId}`);
    expect(ups.sim.packages.get(bought.trackingNumber)?.voidedAt).not.toBeNull();
    expect(ups.sim.log.map((l) => l.operation)).not.toContain('reference');
    expect(ups.sim.log.map((l) => l.operation)).toContain('void');

    // Asked again whether it is cancelled (a void whose answer was lost): by its tracking number.
    ups.sim.log.length = 0;
    expect((await restarted.findPurchase({ ...target, reference: request.reference }))?.cancelled).toBe(true);
    expect(ups.sim.log.map((l) => l.operation)).toEqual(expect.arrayContaining(['track']));
    expect(ups.sim.log.map((l) => l.operation)).not.toContain('reference');
  });

  it('settles a purchase nothing of ours recorded (its answer lost) by reference, and only then', async () => {
    const request = { reference: reference(), serviceCode: 'ups_ground', from: US_FROM, to: US_TO, parcel: PARCEL };
    // Bought at UPS by a process that died before it stored anything.
    await adapter().buy(request);
    ups.sim.log.length = 0;
    const acts = createCarrierActivities({ adapter, labels: carrierLabelSink(database.db) });
    expect(await acts.cancelLabel({ carrier: 'ups', livemode: true, reference: request.reference })).toEqual({ kind: 'cancelled' });
    expect(ups.sim.log.map((l) => l.operation)).toEqual(expect.arrayContaining(['reference', 'void']));
  });
});
