import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CarrierError } from '../../../carriers/types.js';
import { createUspsClient, type UspsClient, type UspsClientConfig } from '../../../carriers/usps/client.js';
import { startUspsSimulator, type UspsSimulatorOptions } from '../../../tools/carrier-sim/usps/index.js';
import { FROM_US, PARCEL_US, TO_US } from './payloads.js';

const HOUR = 3_600_000;
const CREDENTIALS = { clientId: 'sim-client', clientSecret: 'sim-secret-do-not-log' };
const SHIPMENT = 'shp_01j0000000aaaaaaaaaaaaaaaa';

interface Harness {
  client: UspsClient;
  sim: Awaited<ReturnType<typeof startUspsSimulator>>['simulator'];
  /** Moves the shared clock. */
  advance(ms: number): void;
  answerProblems: string[];
  close(): Promise<void>;
}

let clock = Date.parse('2026-07-01T14:00:00Z');
const harnesses: Harness[] = [];

async function harness(simOptions: Partial<UspsSimulatorOptions> = {}, clientOptions: Partial<UspsClientConfig> = {}): Promise<Harness> {
  // The simulator checks every request the client sends and every answer against the schemas generated from USPS's documents.
  const started = await startUspsSimulator({
    ...CREDENTIALS,
    now: () => clock,
    ...simOptions,
  });
  const client = createUspsClient({
    url: started.url,
    ...CREDENTIALS,
    crid: '12345678',
    mid: '123456',
    manifestMid: '123456',
    accountNumber: '1000000000',
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
    },
    // Far above a label's making on a busy machine: the time-out test sets its own.
    timeoutMs: 10_000,
    ...clientOptions,
  });
  const h: Harness = { client, sim: started.simulator, advance: (ms) => (clock += ms), answerProblems: started.simulator.answerProblems, close: started.close };
  harnesses.push(h);
  return h;
}

beforeEach(() => {
  clock = Date.parse('2026-07-01T14:00:00Z');
});

afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    // Whatever the test did, the client sent only what the documents define and the simulator answered likewise.
    expect(h.sim.requestProblems).toEqual([]);
    expect(h.answerProblems).toEqual([]);
    await h.close();
  }
});

const purchase = (shipmentId = SHIPMENT, serviceCode = 'usps_priority_mail') => ({ shipmentId, serviceCode, from: FROM_US, to: TO_US, parcel: PARCEL_US });

async function carrierError(promise: Promise<unknown>): Promise<CarrierError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(CarrierError);
  return error as CarrierError;
}

describe('USPS client against the simulator', () => {
  it('rates every service and charges the quoted price on purchase', async () => {
    const { client, sim } = await harness();
    const rates = await client.rate(FROM_US, TO_US, PARCEL_US, 'all');
    expect(rates.map((r) => r.serviceCode)).toEqual(['usps_ground_advantage', 'usps_priority_mail', 'usps_priority_mail_express']);
    for (const r of rates) expect(Number.isInteger(r.net) && r.net > 0 && r.currency === 'USD').toBe(true);
    const label = await client.buy(purchase());
    expect(label.billed).toEqual({ amount: rates[1].net, currency: 'USD' });
    expect(label.label.format).toBe('pdf');
    expect(Buffer.from(label.label.contentBase64, 'base64').toString('latin1')).toMatch(/^%PDF-/);
    expect(sim.labels().map((l) => l.trackingNumber)).toEqual([label.trackingNumber]);
  });

  it('quotes no return from abroad and refuses an address USPS cannot take before any call', async () => {
    const { client, sim } = await harness();
    expect(await client.rate(FROM_US, { ...TO_US, country: 'FR', postcode: '75001' }, PARCEL_US, 'all', { isReturn: true })).toEqual([]);
    const error = await carrierError(client.buy({ ...purchase(), to: { ...TO_US, city: 'C'.repeat(29) } }));
    expect(error).toMatchObject({ kind: 'definitive', message: 'to.city must be at most 28 characters for USPS' });
    expect(sim.calls).toMatchObject({ token: 0, rate: 0, label: 0 });
  });

  it('reads a label answered as multipart/form-data, the document\'s default', async () => {
    const { client } = await harness({ labelsAlwaysMultipart: true });
    const label = await client.buy(purchase());
    expect(label.trackingNumber).toMatch(/^\d{22}$/);
    expect(label.billed?.amount).toBeGreaterThan(0);
    expect(Buffer.from(label.label.contentBase64, 'base64').toString('latin1')).toMatch(/^%PDF-/);
  });

  it('asks for ZPL when configured so', async () => {
    const { client } = await harness({}, { labelFormat: 'zpl' });
    const label = await client.buy(purchase());
    expect(label.label.format).toBe('zpl');
    expect(Buffer.from(label.label.contentBase64, 'base64').toString('utf8')).toMatch(/^\^XA[\s\S]*\^XZ\s*$/);
  });

  it('caches the token and the payment token per process', async () => {
    const { client, sim } = await harness();
    await Promise.all([client.rate(FROM_US, TO_US, PARCEL_US, 'usps_ground_advantage'), client.track('92055900066622999999').catch(() => null)]);
    await client.buy(purchase('shp_01j0000000aaaaaaaaaaaaaaa1'));
    await client.buy(purchase('shp_01j0000000aaaaaaaaaaaaaaa2'));
    expect(sim.calls.token).toBe(1);
    expect(sim.calls.payment).toBe(1);
    // Eight hours on, both have expired: one of each is fetched again, before the call, not after a failure.
    clock += 8 * HOUR;
    await client.buy(purchase('shp_01j0000000aaaaaaaaaaaaaaa3'));
    expect(sim.calls.token).toBe(2);
    expect(sim.calls.payment).toBe(2);
    expect(sim.calls.label).toBe(3);
  });

  it('renews a token that expires early on its first 401, once, and the call succeeds', async () => {
    const { client, sim } = await harness({ tokenLifetimeSeconds: 3600 });
    await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail');
    sim.expireTokens();
    const rates = await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail');
    expect(rates).toHaveLength(1);
    expect(sim.calls).toMatchObject({ token: 2, rate: 3 });
    // A token near its end is renewed before use: no call fails for it.
    clock += 3600_000 - 30_000;
    await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail');
    expect(sim.calls).toMatchObject({ token: 3, rate: 4 });
  });

  it('renews the token once for concurrent calls that meet the same 401, even one whose 401 comes after the renewal', async () => {
    const { client, sim } = await harness();
    await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail');
    expect(sim.calls.token).toBe(1);
    sim.expireTokens();
    // The first of these calls is held 300 ms before USPS reads its token: its 401 arrives after the
    // others have renewed it, and it must take the new token rather than renew it again.
    sim.inject('rate', { kind: 'slow', ms: 300 });
    const answers = await Promise.all(Array.from({ length: 4 }, () => client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail')));
    for (const rates of answers) expect(rates).toHaveLength(1);
    expect(sim.calls.token).toBe(2);
    expect(sim.calls.rate).toBe(1 + 4 * 2);
  });

  it('reads expires_in sent as a number as well', async () => {
    const { client, sim } = await harness({ expiresInAsString: false });
    await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail');
    await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail');
    expect(sim.calls.token).toBe(1);
  });

  it('reports wrong credentials as definitive, without the secret', async () => {
    const { client } = await harness({ clientSecret: 'the-right-one' });
    const error = await carrierError(client.rate(FROM_US, TO_US, PARCEL_US, 'all'));
    expect(error.kind).toBe('definitive');
    expect(error.details).toMatchObject({ status: 401, carrierErrorCode: 'invalid_client' });
    expect(error.message).not.toContain(CREDENTIALS.clientSecret);
  });

  it('honours Retry-After: waits out a short one, and sends nothing until a long one passes', async () => {
    const { client, sim } = await harness({ quota: { limit: 3, windowMs: HOUR } });
    sim.inject('rate', { kind: 'error', status: 429, headers: { 'retry-after': '1' } });
    const before = clock;
    expect(await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail')).toHaveLength(1); // token, 429, retry
    expect(clock - before).toBe(1000);

    const error = await carrierError(client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail'));
    expect(error.kind).toBe('retryable');
    expect(error.details.status).toBe(429);
    expect(error.details.retryAfterMs).toBeGreaterThan(50 * 60_000);
    const sent = sim.calls.rate;
    const again = await carrierError(client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail'));
    expect(again.kind).toBe('retryable');
    expect(sim.calls.rate).toBe(sent); // the quota is not spent on a call certain to fail

    clock += HOUR;
    expect(await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail')).toHaveLength(1);
  });

  it('settles a purchase whose answer was lost by sending the same request under the same key, never a reprint', async () => {
    const { client, sim } = await harness();
    sim.inject('label', { kind: 'lost' });
    const error = await carrierError(client.buy(purchase()));
    expect(error.kind).toBe('ambiguous');
    // Buying again with the same key and body returns the same label, not a second one.
    const again = await client.buy(purchase());
    expect(again.trackingNumber).toBe(sim.labels()[0].trackingNumber);
    expect(again.billed?.amount).toBeGreaterThan(0);
    expect(sim.calls.reprint).toBe(0);
    expect(sim.labels()).toHaveLength(1);
  });

  it('calls a purchase that timed out ambiguous, and a read that timed out retryable', async () => {
    const { client, sim } = await harness({}, { timeoutMs: 300 });
    await client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail'); // token and payment first
    sim.inject('label', { kind: 'timeout' });
    expect((await carrierError(client.buy(purchase()))).kind).toBe('ambiguous');
    sim.inject('track', { kind: 'timeout' });
    expect((await carrierError(client.track('92055900066622000001'))).kind).toBe('retryable');
    sim.inject('label', { kind: 'error', status: 503 });
    expect((await carrierError(client.buy(purchase('shp_01j0000000aaaaaaaaaaaaaab1')))).kind).toBe('ambiguous');
    sim.inject('rate', { kind: 'error', status: 503 });
    expect((await carrierError(client.rate(FROM_US, TO_US, PARCEL_US, 'usps_priority_mail'))).kind).toBe('retryable');
  });

  it('cancels before the manifest, asks a refund after it, and is refused once the label is scanned', async () => {
    const { client } = await harness();
    const early = await client.buy(purchase('shp_01j0000000aaaaaaaaaaaaaac1'));
    expect(await client.cancel(early.trackingNumber)).toEqual({ kind: 'cancelled' });

    const manifested = await client.buy(purchase('shp_01j0000000aaaaaaaaaaaaaac2'));
    const scanned = await client.buy(purchase('shp_01j0000000aaaaaaaaaaaaaac3'));
    clock += 40 * 60_000;
    expect(await client.cancelByShipment('shp_01j0000000aaaaaaaaaaaaaac2')).toEqual({ kind: 'refund_requested', trackingNumber: manifested.trackingNumber });
    // The same refund request again (a retry after a lost answer) stands as it was.
    expect(await client.cancel(manifested.trackingNumber)).toEqual({ kind: 'refund_requested' });

    clock += 2 * HOUR;
    expect(await client.cancel(scanned.trackingNumber)).toEqual({
      kind: 'refused',
      reason: 'already_scanned',
      message: 'A refund request for this order cannot be submitted',
    });
    const unknown = await carrierError(client.cancel('92055900066622999999'));
    expect(unknown.kind).toBe('definitive');
    expect(unknown.details.reason).toBe('not_found');
  });

  it('tracks a label through transit, an exception and delivery, oldest first', async () => {
    const { client } = await harness();
    const label = await client.buy(purchase());
    expect((await client.track(label.trackingNumber)).map((s) => s.status)).toEqual(['label_created']);
    clock += 50 * HOUR;
    const scans = await client.track(label.trackingNumber);
    expect(scans.map((s) => [s.carrierCode, s.status])).toEqual([
      ['GX', 'label_created'],
      ['03', 'in_transit'],
      ['EF', 'in_transit'],
      ['OF', 'out_for_delivery'],
      ['55', 'exception'],
      ['OF', 'out_for_delivery'],
      ['01', 'delivered'],
    ]);
    expect(new Set(scans.map((s) => s.id)).size).toBe(scans.length);
    expect(scans.every((s) => s.occurredAt.endsWith('Z'))).toBe(true);
    const unknown = await carrierError(client.track('92055900066622999999'));
    expect(unknown).toMatchObject({ kind: 'definitive', details: { status: 404, reason: 'not_found' } });
  });

  it('has the simulator refuse a request that breaks the document, as USPS does', async () => {
    const started = await startUspsSimulator({ ...CREDENTIALS, now: () => clock });
    try {
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(started.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      const token = (await (await post('/oauth2/v3/token', { grant_type: 'client_credentials', client_id: CREDENTIALS.clientId, client_secret: CREDENTIALS.clientSecret })).json()) as { access_token: string };
      // Weight in grams under a field USPS does not define, and no processing category.
      const bad = { originZIPCode: '20024', destinationZIPCode: '63104', weight_g: 2000, length: 12, width: 8, height: 4, mailClass: 'PRIORITY_MAIL', rateIndicator: 'SP', destinationEntryFacilityType: 'NONE', priceType: 'COMMERCIAL' };
      const answer = await post('/prices/v3/base-rates/search', bad, { authorization: `Bearer ${token.access_token}` });
      expect(answer.status).toBe(400);
      expect(started.simulator.requestProblems.join('\n')).toMatch(/rate: .*(weight|processingCategory|additional)/);
    } finally {
      await started.close();
    }
  });
});
