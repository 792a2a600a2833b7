import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCarrierActivities } from '../../activities/index.js';
import { CARRIER_MODULES, CarrierError, createCarrierRegistry, defaultCarrierBaseUrls, type CarrierModule, type CarrierRegistry } from '../../carriers/index.js';
import { upsCarrier } from '../../carriers/ups/index.js';
import { uspsCarrier } from '../../carriers/usps/index.js';
import { carrierSimUrl, type Config } from '../../config/index.js';
import { carrierBilledOf, carrierLabelOf } from '../../db/index.js';
import { CODE } from '../../domain/index.js';
import { SIMULATOR_CREDENTIALS } from '../../tools/carrier-sim/index.js';
import type { SimExtraEvent } from '../../tools/carrier-sim/usps/state.js';
import { startUspsSimulator } from '../../tools/carrier-sim/usps/server.js';
import { carrierLabelSink } from '../../workers/activities.js';
import { eventually } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { download, openPdf } from '../support/files.js';

/**
 * Live UPS and USPS labels end to end (contract: Carriers): bought on the carriers' queues against
 * the simulators, the carrier's document and bill stored once, the three files made from it, a
 * USPS void that is a refund request, a void refused once the parcel is scanned, and scans with
 * the carrier's own status code. The UPS and USPS services are given rate cards here, so that the
 * purchase path prices them whatever the platform's own pricing of carrier-rated services is.
 */

/** USPS on a simulator of its own: every label counts as manifested, so a void is a refund request. */
let usps: Awaited<ReturnType<typeof startUspsSimulator>>;
/** Scans the test gives USPS parcels, by tracking number. */
const uspsScans = new Map<string, SimExtraEvent[]>();
/** What USPS made of each cancellation, by tracking number: `disputed` is a refund request. */
const uspsCancels = new Map<string, string>();
let stack: TestStack;
let acct: TestAccount;
let registry: CarrierRegistry;

const priced = (m: CarrierModule, net: number): CarrierModule => ({
  ...m,
  definition: { ...m.definition, pricing: 'rate_card', services: m.definition.services.map((s) => ({ ...s, rate: () => net })) },
});

/** While set, UPS refuses to recover a label (a ZPL the carrier does not give). */
let refuseRecovery = false;

function pricedRegistry(config: Config): CarrierRegistry {
  const base = createCarrierRegistry(
    {
      baseUrls: { ...defaultCarrierBaseUrls(carrierSimUrl(config)), ...config.carrierUrls, usps: usps.url },
      timeoutMs: 5_000,
      credentials: config.carrierCredentials,
    },
    [...CARRIER_MODULES, priced(upsCarrier, 1_250), priced(uspsCarrier, 850)],
  );
  registry = {
    ...base,
    adapter(code, livemode) {
      const adapter = base.adapter(code, livemode);
      if (code !== 'ups' || !livemode) return adapter;
      return {
        ...adapter,
        recoverLabel: async (purchase, format) => {
          if (refuseRecovery) throw new CarrierError('definitive', 'label recovery refused', { carrierCode: 'ups' });
          return adapter.recoverLabel!(purchase, format);
        },
      };
    },
  };
  return registry;
}

beforeAll(async () => {
  usps = await startUspsSimulator({
    clientId: SIMULATOR_CREDENTIALS.usps.clientId,
    clientSecret: SIMULATOR_CREDENTIALS.usps.clientSecret,
    manifestAfterMs: 0,
    extraEvents: (trackingNumber) => uspsScans.get(trackingNumber) ?? [],
    onCancel: (label) => uspsCancels.set(label.trackingNumber, label.status),
  });
  stack = await startTestStack({}, { registry: pricedRegistry });
  acct = await createAccount(stack, { topUp: '500.00' });
});
afterAll(async () => {
  await stack?.stop();
  await usps?.close();
});

const NEW_YORK = address({ name: 'Ann Sender', line1: '350 5th Ave', city: 'New York', state: 'NY', postcode: '10118', country: 'US' });
const LOS_ANGELES = address({ name: 'Bob Receiver', line1: '200 N Spring St', city: 'Los Angeles', state: 'CA', postcode: '90012', country: 'US' });

async function buy(service: string, key = acct.liveKey) {
  const answer = await call(stack, 'POST', '/api/v1/shipments', {
    key,
    headers: { 'idempotency-key': randomBytes(8).toString('hex') },
    body: { service, from: NEW_YORK, to: LOS_ANGELES, parcel: parcel(), reference: `real-${service}` },
  });
  expect(answer.status, answer.text).toBe(201);
  expect(answer.body.status).toBe('purchased');
  return answer.body as { id: string; label: { url: string }; tracking: { number: string } };
}



/** A shipment id's shape (USPS takes references of at most 30 characters). */
const newReference = () => `shp_${randomBytes(13).toString('hex')}`;

const balance = async () => Number((await call(stack, 'GET', '/api/v1/account/balance', { key: acct.liveKey })).body.available);

/** The three files of a real carrier's label, to the bearer and through a signed link. */
async function expectCarrierFiles(s: { id: string; label: { url: string } }, zpl: Buffer) {
  const auth = { authorization: `Bearer ${acct.liveKey}` };
  const label = await download(`${stack.url}${s.label.url}`, auth);
  expect(label.status).toBe(200);
  expect(label.type).toContain('application/pdf');
  expect(await openPdf(label.body)).toMatchObject({ pages: 1, width: 288, height: 432 });
  expect((await openPdf(label.body)).images).toBeGreaterThan(0);

  const a4 = await download(`${stack.url}${s.label.url}?format=pdf_a4`, auth);
  expect(a4.status).toBe(200);
  const a4Pdf = await openPdf(a4.body);
  expect(a4Pdf.width).toBeCloseTo(595.28, 1);
  expect(a4Pdf.height).toBeCloseTo(841.89, 1);
  expect(a4Pdf.images).toBeGreaterThan(0);

  const thermal = await download(`${stack.url}${s.label.url}?format=zpl`, auth);
  expect(thermal.status).toBe(200);
  expect(thermal.type).toContain('application/zpl');
  expect(thermal.body.toString('latin1').startsWith('^XA')).toBe(true);
  // The carrier's ZPL byte for byte, not one of ours.
  expect(thermal.body.equals(zpl)).toBe(true);

  const link = await call(stack, 'GET', `/api/v1/shipments/${s.id}/label/pdf_6x4`, { key: acct.liveKey });
  expect(link.status).toBe(200);
  const signed = await download(link.body.url);
  expect(signed.status).toBe(200);
  expect(signed.body.equals(label.body)).toBe(true);
}

describe('a real carrier’s label (contract: Carriers)', () => {
  it('UPS: the GIF and its recovered ZPL stored once with the bill, served as pdf_6x4, pdf_a4 and zpl', async () => {
    const s = await buy('ups_ground');
    const stored = await carrierLabelOf(stack.database.db, s.id);
    expect(stored).toMatchObject({ carrier: 'ups', format: 'gif' });
    expect(stored!.content.subarray(0, 3).toString('latin1')).toBe('GIF');
    expect(stored!.zpl).not.toBeNull();
    const billed = await carrierBilledOf(stack.database.db, s.id);
    expect(billed?.currency).toBe('USD');
    expect(billed?.amount).toBeGreaterThan(0);
    await expectCarrierFiles(s, stored!.zpl!);
  });

  it('USPS: the PNG and its reprinted ZPL stored once with the bill, served as pdf_6x4, pdf_a4 and zpl', async () => {
    const s = await buy('usps_priority_mail');
    const stored = await carrierLabelOf(stack.database.db, s.id);
    expect(stored).toMatchObject({ carrier: 'usps', format: 'png' });
    expect(stored!.content.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(stored!.zpl).not.toBeNull();
    const billed = await carrierBilledOf(stack.database.db, s.id);
    expect(billed?.currency).toBe('USD');
    expect(billed?.amount).toBeGreaterThan(0);
    await expectCarrierFiles(s, stored!.zpl!);
  });

  it('a ZPL the carrier does not give: the purchase stands, the PDFs are served, zpl is 409 label_not_available', async () => {
    refuseRecovery = true;
    let s;
    try {
      s = await buy('ups_ground');
    } finally {
      refuseRecovery = false;
    }
    expect(await carrierLabelOf(stack.database.db, s.id)).toMatchObject({ format: 'gif', zpl: null });
    const auth = { authorization: `Bearer ${acct.liveKey}` };
    const pdf = await download(`${stack.url}${s.label.url}?format=pdf_a4`, auth);
    expect(pdf.status).toBe(200);
    expect((await openPdf(pdf.body)).images).toBeGreaterThan(0);
    const zpl = await call(stack, 'GET', `${s.label.url}?format=zpl`, { key: acct.liveKey });
    expect(zpl.status).toBe(409);
    expect(zpl.body.code).toBe('label_not_available');
  });

  it('a retried buy stores nothing new: the first document, ZPL and bill stay', async () => {
    const acts = createCarrierActivities({ adapter: registry.adapter, labels: carrierLabelSink(stack.database.db) });
    const reference = newReference();
    const request = { reference, serviceCode: 'ups_ground', from: NEW_YORK, to: LOS_ANGELES, parcel: parcel() };
    const first = await acts.buyLabel({ carrier: 'ups', livemode: true, request });
    const stored = await carrierLabelOf(stack.database.db, reference);
    const billed = await carrierBilledOf(stack.database.db, reference);
    expect(billed).toBeDefined();
    // A retry after a lost answer: UPS finds the package by reference and recovers its label, without a bill.
    const again = await acts.buyLabel({ carrier: 'ups', livemode: true, request: { ...request, earlierAttempt: true } });
    expect(again.trackingNumber).toBe(first.trackingNumber);
    // The workflow gets the purchase only, never the document.
    expect(Object.keys(again).sort()).toEqual(['cancelled', 'reference', 'serviceCode', 'trackingNumber']);
    expect(await carrierLabelOf(stack.database.db, reference)).toEqual(stored);
    expect(await carrierBilledOf(stack.database.db, reference)).toEqual(billed);
  });
});

describe('voids and scans of a real carrier (contract: Carriers)', () => {
  it('USPS cancellations as the void workflow gets them: refund_requested, or a refusal because scanned that is label_already_scanned', async () => {
    const acts = createCarrierActivities({ adapter: registry.adapter, labels: carrierLabelSink(stack.database.db) });
    const request = () => ({ reference: newReference(), serviceCode: 'usps_ground_advantage', from: NEW_YORK, to: LOS_ANGELES, parcel: parcel() });
    const target = { carrier: 'usps', livemode: true };

    const unscanned = request();
    await acts.buyLabel({ ...target, request: unscanned });
    expect(await acts.cancelLabel({ ...target, reference: unscanned.reference })).toEqual({ kind: 'refund_requested' });

    const scanned = request();
    const { trackingNumber } = await acts.buyLabel({ ...target, request: scanned });
    uspsScans.set(trackingNumber, [{ at: Date.now() - 60_000, code: '03', type: 'USPS picked up item', city: 'NEW YORK', zip: '10118' }]);
    const failure = await acts.cancelLabel({ ...target, reference: scanned.reference }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: CODE.carrier_error, nonRetryable: true });
    expect((failure as ApplicationFailure).details?.[0]).toMatchObject({ carrier: 'usps', reason: 'already_scanned' });
  });

  it('a USPS void is a refund request: once accepted the shipment is voided and the charge reversed', async () => {
    const before = await balance();
    const s = await buy('usps_ground_advantage');
    expect(await balance()).toBeLessThan(before);
    const voided = await call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.liveKey, headers: { 'idempotency-key': randomBytes(8).toString('hex') } });
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect(uspsCancels.get(s.tracking.number)).toBe('disputed');
    expect(await balance()).toBe(before);
    // The label is gone with the void.
    expect((await call(stack, 'GET', s.label.url, { key: acct.liveKey })).body.code).toBe('label_not_available');
  });

  it('a USPS label already scanned cannot be voided: 409 label_already_scanned, the charge stays, and the scan shows with its carrier_code', async () => {
    const s = await buy('usps_priority_mail');
    const charged = await balance();
    uspsScans.set(s.tracking.number, [{ at: Date.now() - 60_000, code: '10', type: 'Processed through USPS Facility', city: 'CHICAGO', zip: '60601' }]);
    const refused = await call(stack, 'POST', `/api/v1/shipments/${s.id}/void`, { key: acct.liveKey, headers: { 'idempotency-key': randomBytes(8).toString('hex') } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.code).toBe('label_already_scanned');
    expect(uspsCancels.has(s.tracking.number)).toBe(false);
    expect(await balance()).toBe(charged);

    const tracking = await call(stack, 'GET', `/api/v1/tracking/${s.tracking.number}`, { key: acct.liveKey });
    expect(tracking.status).toBe(200);
    expect(tracking.body.events).toEqual([
      expect.objectContaining({ status: 'in_transit', carrier_code: '10', location: expect.objectContaining({ postcode: '60601' }) }),
    ]);
    // The same scan in its tracking.updated webhook payload.
    const update = await eventually(async () => {
      const events = await call(stack, 'GET', '/api/v1/events?type=tracking.updated&limit=100', { key: acct.liveKey });
      return (events.body.data as Array<{ data: { object: { shipment_id: string; event: { carrier_code: string | null } } } }>).find(
        (e) => e.data.object.shipment_id === s.id,
      );
    });
    expect(update.data.object.event.carrier_code).toBe('10');
  });

  it('a sandbox scan has no carrier code: carrier_code null', async () => {
    const answer = await call(stack, 'POST', '/api/v1/shipments', {
      key: acct.testKey,
      body: { service: 'acme_ground', from: address(), to: address({ city: 'Leeds' }), parcel: parcel() },
    });
    expect(answer.status, answer.text).toBe(201);
    const s = answer.body;
    expect((await call(stack, 'POST', `/api/v1/sandbox/shipments/${s.id}/scans`, { key: acct.testKey, body: { status: 'in_transit' } })).status).toBe(202);
    const events = await eventually(async () => {
      const tracking = await call(stack, 'GET', `/api/v1/tracking/${s.tracking.number}`, { key: acct.testKey });
      return tracking.body.events?.length ? tracking.body.events : undefined;
    });
    expect(events).toEqual([expect.objectContaining({ status: 'in_transit', carrier_code: null })]);
  });
});
