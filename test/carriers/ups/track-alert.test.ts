// UPS Track Alert (UPS's `UPSTrackAlert.yaml`) offline: the document's own
// examples read by our mapping, then the UPS adapter's subscription against the simulator, which
// pushes each later event to a webhook as the document describes. A pushed event and a poll of the
// same activity are one scan (the same id), so neither is recorded twice.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierAdapter } from '../../../carriers/index.js';
import { createUpsAdapter } from '../../../carriers/ups/index.js';
import { buildTrackAlertSubscription, parseTrackAlertSubscription, TrackAlertEvent, trackAlertScan } from '../../../carriers/ups/track-alert.js';
import { upsDefinition } from '../../../carriers/ups/definition.js';
import { startUpsSimulator } from '../../../tools/carrier-sim/ups/index.js';
import type { SimExtraScan } from '../../../tools/carrier-sim/ups/state.js';
import { eventually } from '../../support/sim.js';
import { ACCOUNT, PARCEL, SHIPMENT_ID, US_FROM, US_TO } from './payloads.js';

/** The document's two TrackingEvent examples. */
const OUT_FOR_DELIVERY = {
  trackingNumber: '1Z204W4R0308071865',
  localActivityDate: '20240423',
  localActivityTime: '091519',
  activityLocation: { city: 'Charlotte', stateProvince: 'NC', postalCode: '30004', country: 'US' },
  activityStatus: { type: 'I', code: 'OT', description: 'Out for Delivery', descriptionCode: '021' },
  scheduledDeliveryDate: '20240423',
  gmtActivityDate: '20240423',
  gmtActivityTime: '131519',
  deliveryTimeDescription: 'end of day',
};
const DELIVERED = {
  trackingNumber: '1Z204W4R0308071865',
  localActivityDate: '20240423',
  localActivityTime: '095004',
  activityLocation: { city: 'CHARLOTTE', stateProvince: 'NC', postalCode: '28209', country: 'US' },
  activityStatus: { type: 'D', code: 'FS', description: 'Delivered', descriptionCode: '011' },
  scheduledDeliveryDate: '20191014',
  gmtActivityDate: '20240423',
  gmtActivityTime: '135004',
  actualDeliveryDate: '20240423',
  actualDeliveryTime: '095004',
  receivedBy: 'John',
};

describe('Track Alert mapping (the document\'s examples)', () => {
  it('reads its events as our scans, with UPS\'s type kept', () => {
    expect(Value.Check(TrackAlertEvent, OUT_FOR_DELIVERY)).toBe(true);
    expect(trackAlertScan(OUT_FOR_DELIVERY)).toEqual({
      id: '1Z204W4R0308071865:2024-04-23T13:15:19Z:I:OT',
      occurredAt: '2024-04-23T13:15:19Z',
      status: 'out_for_delivery',
      carrierCode: 'I',
      description: 'Out for Delivery',
      location: { city: 'Charlotte', postcode: '30004', country: 'US' },
    });
    expect(trackAlertScan(DELIVERED)).toMatchObject({ occurredAt: '2024-04-23T13:50:04Z', status: 'delivered', carrierCode: 'D' });
    // Local time with its offset when the GMT fields are blank ("not every field will have a value").
    const local = { ...DELIVERED, gmtActivityDate: undefined, gmtActivityTime: undefined, gmtOffset: '-04.00' };
    expect(trackAlertScan(local)?.occurredAt).toBe('2024-04-23T13:50:04Z');
    // Not a movement of the parcel: a manifest, a voided manifest, a new delivery date.
    for (const type of ['M', 'MV', 'U']) expect(trackAlertScan({ ...DELIVERED, activityStatus: { type, code: 'XX' } })).toBeNull();
  });

  it('subscribes in the document\'s shape and reads its partial answer', () => {
    expect(buildTrackAlertSubscription(['1ZCIETST0111111114', '1ZCIETST0422222228'])).toEqual({
      locale: 'en_US',
      countryCode: 'US',
      trackingNumberList: ['1ZCIETST0111111114', '1ZCIETST0422222228'],
    });
    const answer = { validTrackingNumbers: ['1Z1234567891234556'], invalidTrackingNumbers: ['1Z1234567$8'] };
    expect(parseTrackAlertSubscription(answer, ['1Z1234567891234556', '1Z1234567$8'])).toEqual({ subscribed: ['1Z1234567891234556'], refused: ['1Z1234567$8'] });
    expect(parseTrackAlertSubscription({ validTrackingNumbers: 'all' }, [])).toBeUndefined();
    expect(upsDefinition.capabilities.trackingSubscription).toEqual({ lifetimeMs: 14 * 24 * 3_600_000, perCall: 100 });
  });
});

/** A webhook and token endpoint of our own, recording what UPS sends. */
let receiver: Server;
const received: Array<{ headers: IncomingHttpHeaders; body: any }> = [];
let ups: Awaited<ReturnType<typeof startUpsSimulator>>;
let adapter: CarrierAdapter;
const extra = new Map<string, SimExtraScan[]>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      if (req.url === '/token') {
        const ok = req.headers.authorization === `Basic ${Buffer.from('ups:push-secret').toString('base64')}` && text === 'grant_type=client_credentials';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(ok ? { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 } : {}));
        return;
      }
      received.push({ headers: req.headers, body: JSON.parse(text) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const at = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  ups = await startUpsSimulator({
    accountNumber: ACCOUNT,
    extraScans: (n) => extra.get(n) ?? [],
    trackAlert: { url: `${at}/events`, tokenUrl: `${at}/token`, clientId: 'ups', clientSecret: 'push-secret' },
  });
  adapter = createUpsAdapter({ baseUrl: ups.url, credentials: { CLIENT_ID: 'sim-client-id', CLIENT_SECRET: 'sim-client-secret', ACCOUNT_NUMBER: ACCOUNT } });
});
afterAll(async () => {
  await ups?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('Track Alert through the UPS adapter and simulator', () => {
  it('subscribes a package; each later event is pushed signed, and is the very scan a poll reads', async () => {
    const label = await adapter.buy({ reference: SHIPMENT_ID, serviceCode: 'ups_ground', from: US_FROM, to: US_TO, parcel: PARCEL });
    expect(await adapter.subscribeTracking!([label.trackingNumber, '1Z1234567$8'])).toEqual({ subscribed: [label.trackingNumber], refused: ['1Z1234567$8'] });
    // Events before the subscription are not sent ("Track Alert does not retain any history").
    expect(received).toEqual([]);
    extra.set(label.trackingNumber, [{ at: Date.now(), type: 'I', code: 'AR', description: 'Arrived at Facility', city: 'Atlanta', postalCode: '30336' }]);
    ups.sim.trackAlert.notify(label.trackingNumber);
    await eventually(async () => received.length || undefined, 10_000, 'the push');
    const [push] = received;
    expect(push.headers).toMatchObject({ authorization: 'Bearer tok-1', 'x-api-key': 'ups', 'user-agent': 'UPSPubSubTrackingService', 'content-type': 'application/json' });
    expect(Value.Check(TrackAlertEvent, push.body)).toBe(true);
    const pushed = trackAlertScan(push.body);
    const polled = await adapter.scans(label.trackingNumber);
    expect(polled).toHaveLength(1);
    expect(pushed).toEqual({ ...polled[0], location: { ...polled[0].location!, country: 'US' } });
    // Told again, it sends nothing twice.
    ups.sim.trackAlert.notify(label.trackingNumber);
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toHaveLength(1);
  });

  it('refuses what the document refuses: over 100 numbers, none valid', async () => {
    await expect(adapter.subscribeTracking!(Array.from({ length: 101 }, (_, i) => `1Z${String(i).padStart(16, '0')}`))).rejects.toMatchObject({ kind: 'definitive', details: { carrierErrorCode: 'VSS220' } });
    await expect(adapter.subscribeTracking!(['not-a-ups-number'])).rejects.toMatchObject({ kind: 'definitive', details: { carrierErrorCode: 'VSS210' } });
  });
});
