import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shipmentWorkflowId } from '../../contract/index.js';
import { SIMULATOR_CREDENTIALS } from '../../tools/carrier-sim/index.js';
import { startUpsSimulator } from '../../tools/carrier-sim/ups/index.js';
import type { SimExtraScan } from '../../tools/carrier-sim/ups/state.js';
import { startUspsSimulator } from '../../tools/carrier-sim/usps/index.js';
import type { SimExtraEvent } from '../../tools/carrier-sim/usps/state.js';
import { eventually } from '../support/sim.js';
import { call, createAccount, expectLedgerConsistent, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { download, openPdf } from '../support/files.js';

/**
 * The real carriers end to end through the public HTTP API with live keys, against the UPS and USPS
 * simulators, for each service a customer is promised (contract: Carriers): quote, buy, the three
 * label files to the bearer and through a signed link, tracking to delivered, a void refused once
 * scanned, and a second label voided with its charge reversed. Then an access token that expires
 * mid-run (one refresh, no failed purchase) and a deployment with wrong credentials (502
 * carrier_error, nothing charged).
 *
 * UPS and USPS run here on simulators of their own, the stack pointed at them by CARRIER_UPS_URL and
 * CARRIER_USPS_URL as a deployment would be, so that the test can expire their tokens and count the
 * tokens they issue. Scans come from the test, as `/_sim/scans` gives them on the shared simulator.
 * Every USPS label counts as manifested at once: its void is a refund request.
 */

/** Scans the test gives the carriers, by tracking number, in each carrier's own terms. */
const upsScans = new Map<string, SimExtraScan[]>();
const uspsScans = new Map<string, SimExtraEvent[]>();
/** What USPS made of each cancellation, by tracking number: `disputed` is a refund request. */
const uspsCancels = new Map<string, string>();

let ups: Awaited<ReturnType<typeof startUpsSimulator>>;
let usps: Awaited<ReturnType<typeof startUspsSimulator>>;
let stack: TestStack;

beforeAll(async () => {
  ups = await startUpsSimulator({
    ...SIMULATOR_CREDENTIALS.ups,
    extraScans: (trackingNumber) => upsScans.get(trackingNumber) ?? [],
  });
  usps = await startUspsSimulator({
    clientId: SIMULATOR_CREDENTIALS.usps.clientId,
    clientSecret: SIMULATOR_CREDENTIALS.usps.clientSecret,
    manifestAfterMs: 0,
    extraEvents: (trackingNumber) => uspsScans.get(trackingNumber) ?? [],
    onCancel: (label) => uspsCancels.set(label.trackingNumber, label.status),
  });
  stack = await startTestStack({
    carrierUrls: { ups: ups.url, usps: usps.url },
    // Tracking polls soon after a scan, so that a parcel walks to delivered within the test.
    trackingPollMinMs: 300,
    trackingPollMaxMs: 1_500,
  });
});
afterAll(async () => {
  await stack?.stop();
  await ups?.close();
  await usps?.close();
});

type Status = 'in_transit' | 'out_for_delivery' | 'delivered';
/** Our scan statuses as each carrier writes them (UPS's Tracking status types, USPS's Publication 199 codes). */
const UPS_SCAN: Record<Status, Omit<SimExtraScan, 'at'>> = {
  in_transit: { type: 'I', code: 'DP', description: 'Departed from Facility', city: 'Baltimore', postalCode: '21226' },
  out_for_delivery: { type: 'O', code: 'OT', description: 'Out For Delivery Today', city: 'Alpharetta', postalCode: '30005' },
  delivered: { type: 'D', code: 'FS', description: 'DELIVERED', city: 'Alpharetta', postalCode: '30005' },
};
const USPS_SCAN: Record<Status, Omit<SimExtraEvent, 'at'>> = {
  in_transit: { code: '10', type: 'Processed through USPS Facility', city: 'BALTIMORE', zip: '21226' },
  out_for_delivery: { code: 'OF', type: 'Out for Delivery', city: 'ALPHARETTA', zip: '30005' },
  delivered: { code: '01', type: 'Delivered, Front Door/Porch', city: 'ALPHARETTA', zip: '30005' },
};

let lastScanAt = 0;
/**
 * The carrier scans the parcel now. Returns the `carrier_code` the scan shows with: UPS's activity
 * status type (ours is mapped from it), USPS's event code.
 */
function scan(carrier: string, trackingNumber: string, status: Status): string {
  // Each scan strictly after the one before, and already past: scans given in one go keep their order.
  const at = (lastScanAt = Math.max(Date.now() - 10_000, lastScanAt + 1_000));
  if (carrier === 'ups') {
    upsScans.set(trackingNumber, [...(upsScans.get(trackingNumber) ?? []), { at, ...UPS_SCAN[status] }]);
    return UPS_SCAN[status].type;
  }
  uspsScans.set(trackingNumber, [...(uspsScans.get(trackingNumber) ?? []), { at, ...USPS_SCAN[status] }]);
  return USPS_SCAN[status].code;
}

const unique = (prefix: string) => `${prefix} ${randomBytes(4).toString('hex')}`;
const US_FROM = () => ({ name: unique('Shipper'), line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' });
const US_TO = { name: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' };
const GB_FROM = () => ({ name: unique('Tower Books'), line1: '1 Tower Bridge Rd', city: 'London', postcode: 'SE1 2UP', country: 'GB' });
const GB_TO = { name: 'Northern Lights Ltd', line1: '12 Quay St', city: 'Manchester', postcode: 'M3 3HN', country: 'GB' };
const PARCEL = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };

const headers = () => ({ 'idempotency-key': randomBytes(8).toString('hex') });
const balance = async (acct: TestAccount, on: { url: string } = stack) =>
  (await call(on, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body as { available: string; pending: string };
const quoteItem = (answer: { body: any }, code: string) => answer.body.data.find((i: any) => i.service.code === code);



/** One format of a label, to the bearer and through its signed link: the same file both ways. */
async function labelFile(acct: TestAccount, shipment: { id: string; label: { url: string } }, format: string) {
  const byBearer = await download(`${stack.url}${shipment.label.url}?format=${format}`, { authorization: `Bearer ${acct.liveKey}` });
  expect(byBearer.status, `${format} to the bearer`).toBe(200);
  const link = await call(stack, 'GET', `/api/v1/shipments/${shipment.id}/label/${format}`, { key: acct.liveKey });
  expect(link.status, link.text).toBe(200);
  expect(link.body).toMatchObject({ format, url: expect.stringMatching(/^http/), expires_at: expect.any(String) });
  const signed = await download(link.body.url);
  expect(signed.status, `${format} through the signed link`).toBe(200);
  expect(signed.body.equals(byBearer.body)).toBe(true);
  return byBearer;
}

async function waitForStatus(acct: TestAccount, id: string, status: string) {
  return eventually(async () => {
    const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
    return s.body.status === status ? s.body : undefined;
  }, 30_000, `${id} to be ${status}`);
}

const FLOWS = [
  { service: 'ups_standard', carrier: 'ups', currency: 'GBP', route: 'GB to GB', from: GB_FROM, to: GB_TO, tracking: /^1Z[0-9A-Z]{6}\d{10}$/ },
  { service: 'ups_ground', carrier: 'ups', currency: 'USD', route: 'US to US', from: US_FROM, to: US_TO, tracking: /^1Z[0-9A-Z]{6}\d{10}$/ },
  { service: 'usps_ground_advantage', carrier: 'usps', currency: 'USD', route: 'US to US', from: US_FROM, to: US_TO, tracking: /^9\d{21}$/ },
] as const;

describe('a live key against the UPS and USPS simulators, one service at a time (contract: Carriers)', () => {
  for (const flow of FLOWS) {
    it(`${flow.service} for a ${flow.currency} account, ${flow.route}: quote, buy, three files, tracked to delivered, a second label voided`, async () => {
      const acct = await createAccount(stack, { currency: flow.currency, topUp: '200.00' });
      const from = flow.from();
      const body = { service: flow.service, from, to: flow.to, parcel: PARCEL };

      // The quote shows the service, priced by the carrier in the account's currency, for 15 minutes.
      const quoted = Date.now();
      const q = await call(stack, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: { from, to: flow.to, parcel: PARCEL } });
      expect(q.status, q.text).toBe(200);
      expect(q.body.unavailable).toEqual([]);
      const item = quoteItem(q, flow.service);
      expect(item).toMatchObject({ livemode: true, service: { code: flow.service, carrier: flow.carrier }, price: { currency: flow.currency } });
      expect(Date.parse(item.expires_at)).toBeGreaterThanOrEqual(quoted + 15 * 60_000 - 1_000);

      // Bought at the quoted price, with a tracking number in the carrier's format.
      const bought = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: headers(), body });
      expect(bought.status, bought.text).toBe(201);
      const shipment = bought.body;
      expect(shipment).toMatchObject({ status: 'purchased', livemode: true, price: item.price });
      expect(shipment.tracking.number).toMatch(flow.tracking);
      const charged = await balance(acct);
      expect(charged).toMatchObject({ pending: '0.00' });
      expect(Number(charged.available)).toBeCloseTo(200 - Number(item.price.gross), 2);

      // The three files: the carrier's image on a 4 × 6 page and on an A4 page, and the carrier's ZPL.
      const sixByFour = await labelFile(acct, shipment, 'pdf_6x4');
      expect(sixByFour.type).toContain('application/pdf');
      expect(await openPdf(sixByFour.body)).toMatchObject({ pages: 1, width: 288, height: 432, images: expect.any(Number) });
      expect((await openPdf(sixByFour.body)).images).toBeGreaterThan(0);
      const a4 = await labelFile(acct, shipment, 'pdf_a4');
      expect(a4.type).toContain('application/pdf');
      const a4Pdf = await openPdf(a4.body);
      expect(a4Pdf.width).toBeCloseTo(595.28, 1);
      expect(a4Pdf.height).toBeCloseTo(841.89, 1);
      expect(a4Pdf.images).toBeGreaterThan(0);
      const zpl = await labelFile(acct, shipment, 'zpl');
      expect(zpl.type).toContain('application/zpl');
      expect(zpl.body.toString('latin1').startsWith('^XA')).toBe(true);

      // Once the carrier has scanned the parcel, it can no longer be voided, and nothing is refunded.
      const firstCode = scan(flow.carrier, shipment.tracking.number, 'in_transit');
      await waitForStatus(acct, shipment.id, 'in_transit');
      const refused = await call(stack, 'POST', `/api/v1/shipments/${shipment.id}/void`, { key: acct.liveKey, headers: headers() });
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body.code).toBe('label_already_scanned');
      expect(await balance(acct)).toEqual(charged);

      // It walks on to delivered: each scan with the carrier's own code, and a tracking.updated event for it.
      const outCode = scan(flow.carrier, shipment.tracking.number, 'out_for_delivery');
      const deliveredCode = scan(flow.carrier, shipment.tracking.number, 'delivered');
      await waitForStatus(acct, shipment.id, 'delivered');
      const tracking = await call(stack, 'GET', `/api/v1/tracking/${shipment.tracking.number}`, { key: acct.liveKey });
      expect(tracking.status, tracking.text).toBe(200);
      expect(tracking.body).toMatchObject({ tracking_number: shipment.tracking.number, carrier: flow.carrier, shipment_id: shipment.id, status: 'delivered' });
      const walked = (tracking.body.events as Array<{ status: string; carrier_code: string | null }>).filter((e) => e.status !== 'label_created');
      expect(walked.map((e) => [e.status, e.carrier_code])).toEqual([
        ['in_transit', firstCode],
        ['out_for_delivery', outCode],
        ['delivered', deliveredCode],
      ]);
      const update = await eventually(async () => {
        const events = await call(stack, 'GET', '/api/v1/events?type=tracking.updated&limit=100', { key: acct.liveKey });
        return (events.body.data as Array<{ data: { object: { shipment_id: string; status: string; event: { carrier_code: string | null } } } }>).find(
          (e) => e.data.object.shipment_id === shipment.id && e.data.object.status === 'delivered',
        );
      }, 30_000, 'the tracking.updated event of the delivery');
      expect(update.data.object.event.carrier_code).toBe(deliveredCode);

      // A second label, voided before any scan: 200 voided, the charge reversed (USPS: a refund request).
      const second = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: headers(), body: { ...body, reference: 'second' } });
      expect(second.status, second.text).toBe(201);
      expect(Number((await balance(acct)).available)).toBeLessThan(Number(charged.available));
      const voided = await call(stack, 'POST', `/api/v1/shipments/${second.body.id}/void`, { key: acct.liveKey, headers: headers() });
      expect(voided.status, voided.text).toBe(200);
      expect(voided.body.status).toBe('voided');
      if (flow.carrier === 'usps') expect(uspsCancels.get(second.body.tracking.number)).toBe('disputed');
      else expect(ups.sim.packages.get(second.body.tracking.number)?.voidedAt).not.toBeNull();
      expect(await balance(acct)).toEqual(charged);
      await expectLedgerConsistent(stack, acct.id);
    });
  }
});

describe('the carriers’ access tokens (contract: Carriers)', () => {
  it('UPS: a token expired mid-run costs one refresh and no failed purchase', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const from = US_FROM();
    const body = { service: 'ups_ground', from, to: US_TO, parcel: PARCEL };
    expect((await call(stack, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: { from, to: US_TO, parcel: PARCEL } })).status).toBe(200);
    const issued = ups.sim.tokensIssued();
    const logged = ups.sim.log.length;
    ups.sim.expireTokens();

    const bought = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: headers(), body });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body.status).toBe('purchased');
    expect(ups.sim.tokensIssued()).toBe(issued + 1);
    const calls = ups.sim.log.slice(logged);
    // The expired token was refused once, a new one was issued, and one package was shipped.
    expect(calls.filter((c) => c.status === 401)).toHaveLength(1);
    expect(calls.filter((c) => c.operation === 'ship' && c.status === 200)).toHaveLength(1);
    expect([...ups.sim.packages.values()].filter((p) => p.references.includes(bought.body.id))).toHaveLength(1);
  });

  it('USPS: a token expired mid-run costs one refresh and no failed purchase', async () => {
    const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
    const from = US_FROM();
    const body = { service: 'usps_ground_advantage', from, to: US_TO, parcel: PARCEL };
    expect((await call(stack, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: { from, to: US_TO, parcel: PARCEL } })).status).toBe(200);
    const tokens = usps.simulator.calls.token;
    const labels = usps.simulator.calls.label;
    usps.simulator.expireTokens();

    const bought = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: headers(), body });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body.status).toBe('purchased');
    expect(usps.simulator.calls.token).toBe(tokens + 1);
    // The refused attempt and the one that bought: one label.
    expect(usps.simulator.calls.label).toBe(labels + 2);
    expect(usps.simulator.labels().filter((l) => l.trackingNumber === bought.body.tracking.number)).toHaveLength(1);
  });
});

describe('a deployment with wrong carrier credentials (contract: Carriers)', () => {
  let wrong: TestStack;
  beforeAll(async () => {
    // The same simulators, the same database, a secret neither carrier issued.
    const credentials = Object.fromEntries(Object.entries(stack.config.carrierCredentials).map(([code, c]) => [code, { ...c, CLIENT_SECRET: 'not-the-secret' }]));
    wrong = await startTestStack({ carrierUrls: { ups: ups.url, usps: usps.url }, carrierCredentials: credentials });
  });
  afterAll(async () => {
    await wrong?.stop();
  });

  for (const [carrier, service] of [
    ['ups', 'ups_ground'],
    ['usps', 'usps_ground_advantage'],
  ] as const) {
    it(`${carrier}: the quote lists it as carrier_error, and the purchase fails with 502 carrier_error, nothing charged`, async () => {
      const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
      const from = US_FROM();
      const route = { from, to: US_TO, parcel: PARCEL };
      const before = await balance(acct, wrong);
      const upsShipped = ups.sim.log.filter((c) => c.operation === 'ship').length;
      const uspsLabels = usps.simulator.calls.label;

      const q = await call(wrong, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: route });
      expect(q.status, q.text).toBe(200);
      // The refusal named for what it is: the platform's credentials, not this parcel or route.
      expect(q.body.unavailable).toContainEqual({ carrier, code: 'carrier_error', message: expect.stringMatching(/refused this platform's credentials/) });
      expect(quoteItem(q, service)).toBeUndefined();

      const bought = await call(wrong, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: headers(), body: { service, ...route } });
      expect(bought.status, bought.text).toBe(502);
      expect(bought.body.code).toBe('carrier_error');
      // The customer reads our words; the operator reads the carrier's refusal in the shipment's history, without the secret.
      expect(bought.body.detail).toBe('The carrier refused the purchase; nothing was bought or charged.');
      const history = JSON.stringify(await wrong.temporal.workflow.getHandle(shipmentWorkflowId(bought.body.shipment_id)).fetchHistory());
      expect(history).toMatch(new RegExp(`${carrier} refused this platform's credentials`, 'i'));
      expect(history).not.toContain('not-the-secret');
      const failed = await call(wrong, 'GET', `/api/v1/shipments/${bought.body.shipment_id}`, { key: acct.liveKey });
      expect(failed.body).toMatchObject({ status: 'failed', failure: { code: 'carrier_error' } });
      expect(await balance(acct, wrong)).toEqual(before);
      expect(ups.sim.log.filter((c) => c.operation === 'ship').length).toBe(upsShipped);
      expect(usps.simulator.calls.label).toBe(uspsLabels);
      await expectLedgerConsistent(stack, acct.id);
    });

    it(`${carrier}: with a price quoted while the credentials were right, the purchase still fails with 502 carrier_error, nothing charged`, async () => {
      const acct = await createAccount(stack, { currency: 'USD', topUp: '50.00' });
      const from = US_FROM();
      const route = { from, to: US_TO, parcel: PARCEL };
      const q = await call(stack, 'POST', '/api/v1/quotes', { key: acct.liveKey, body: route });
      expect(quoteItem(q, service)).toBeDefined();
      const before = await balance(acct, wrong);

      const bought = await call(wrong, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: headers(), body: { service, ...route } });
      expect(bought.status, bought.text).toBe(502);
      expect(bought.body.code).toBe('carrier_error');
      const history = JSON.stringify(await wrong.temporal.workflow.getHandle(shipmentWorkflowId(bought.body.shipment_id)).fetchHistory());
      expect(history).toMatch(new RegExp(`${carrier} refused the client credentials`, 'i'));
      expect(history).not.toContain('not-the-secret');
      expect(await balance(acct, wrong)).toEqual(before);
      await expectLedgerConsistent(stack, acct.id);
    });
  }
});
