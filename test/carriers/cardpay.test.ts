import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { addFault, simCall, uniqueRef } from './sim-helpers.js';

let sim: CarrierSimulator;
const AUTH = '/cardpay/v1/authorizations';

beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
});

async function authorize(reference: string, amount = 1234) {
  return simCall(sim.url, 'POST', AUTH, { customer: 'acc_test', amount, currency: 'GBP', reference });
}

describe('card processor (simulated)', () => {
  it('authorizes once per reference', async () => {
    const reference = uniqueRef('shp');
    const first = await authorize(reference);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ id: expect.stringMatching(/^auth_/), status: 'authorized', amount: 1234, currency: 'GBP' });
    const again = await authorize(reference);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect((await simCall(sim.url, 'GET', `${AUTH}?reference=${reference}`)).body.data).toHaveLength(1);
    expect((await authorize(reference, 999)).status).toBe(422);
  });

  it('captures then refunds; each repeated step is harmless', async () => {
    const reference = uniqueRef('shp');
    const { id } = (await authorize(reference)).body;
    for (let i = 0; i < 2; i++) {
      expect(await simCall(sim.url, 'POST', `${AUTH}/${id}/capture`, {})).toMatchObject({ status: 200, body: { status: 'captured' } });
    }
    for (let i = 0; i < 2; i++) {
      expect(await simCall(sim.url, 'POST', `${AUTH}/${id}/refund`, {})).toMatchObject({ status: 200, body: { status: 'refunded' } });
    }
    const charges = await simCall(sim.url, 'GET', `/_sim/card-charges?reference=${reference}`);
    expect(charges.body.data).toEqual([expect.objectContaining({ id, status: 'refunded', amount: 1234, reference })]);
  });

  it('voids an authorization; a voided one cannot be captured', async () => {
    const { id } = (await authorize(uniqueRef('shp'))).body;
    expect(await simCall(sim.url, 'POST', `${AUTH}/${id}/void`)).toMatchObject({ status: 200, body: { status: 'voided' } });
    expect(await simCall(sim.url, 'POST', `${AUTH}/${id}/void`)).toMatchObject({ status: 200, body: { status: 'voided' } });
    expect(await simCall(sim.url, 'POST', `${AUTH}/${id}/capture`)).toMatchObject({ status: 422, body: { error: { code: 'invalid_state' } } });
    expect((await simCall(sim.url, 'POST', `${AUTH}/auth_nope/capture`)).status).toBe(404);
  });

  it('declines when a decline fault applies, authorizing nothing', async () => {
    const reference = uniqueRef('shp');
    await addFault(sim.url, { carrier: 'cardpay', operation: 'authorize', mode: 'decline', match: reference });
    const declined = await authorize(reference);
    expect(declined).toMatchObject({ status: 402, body: { error: { code: 'card_declined', message: expect.any(String) } } });
    expect((await simCall(sim.url, 'GET', `/_sim/card-charges?reference=${reference}`)).body.data).toEqual([]);
    // The fault is used up; the same reference may be tried again.
    expect((await authorize(reference)).status).toBe(201);
  });

  it('other faults apply too: a capture that fails with 503 changes nothing', async () => {
    const reference = uniqueRef('shp');
    const { id } = (await authorize(reference)).body;
    await addFault(sim.url, { carrier: 'cardpay', operation: 'capture', mode: 'error', status: 503, match: id });
    expect((await simCall(sim.url, 'POST', `${AUTH}/${id}/capture`)).status).toBe(503);
    expect((await simCall(sim.url, 'GET', `${AUTH}?reference=${reference}`)).body.data[0].status).toBe('authorized');
  });

  it('refuses malformed authorizations with a 400', async () => {
    for (const body of [{}, { customer: 'c', amount: 12.5, currency: 'GBP', reference: 'r' }, { customer: 'c', amount: 100, currency: 'pounds', reference: 'r' }]) {
      expect((await simCall(sim.url, 'POST', AUTH, body)).status).toBe(400);
    }
  });
});
