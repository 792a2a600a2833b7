import { describe, expect, it } from 'vitest';
import { mountSimulator as mountAcme } from '../../tools/carrier-sim/acme/mount.js';
import { mountSimulator as mountSwiftpost } from '../../tools/carrier-sim/swiftpost/mount.js';
import type { SimApi, SimReply, SimRequest } from '../../tools/carrier-sim/sim-types.js';
import { createSimState } from '../../tools/carrier-sim/state.js';

const PARCELS = 2_000;

/**
 * The simulator as the tracking bench fills it (parcels made by `POST /_sim/parcels`), with every
 * read of a purchase by its place in the list counted: a carrier answers a buy or a lookup by our
 * reference without going through every label it holds, or the bench's purchases among 100,000
 * parcels would time the simulator instead of the service.
 */
function crowded() {
  const state = createSimState();
  const acme = mountAcme(state);
  const swiftpost = mountSwiftpost(state);
  for (let i = 0; i < PARCELS; i++) {
    acme.createParcel!(Date.now(), `bench-acme-${i}`);
    swiftpost.createParcel!(Date.now(), `bench-swiftpost-${i}`);
  }
  let reads = 0;
  state.purchases = new Proxy(state.purchases, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { state, acme, swiftpost, reads: () => reads };
}

function send(api: SimApi, method: string, path: string, o: { body?: unknown; query?: Record<string, string>; headers?: Record<string, string> } = {}): SimReply {
  const route = api.routes.find((r) => r.method === method && r.pattern.test(path));
  if (!route) throw new Error(`no route ${method} ${path}`);
  const request: SimRequest = {
    method,
    path,
    query: new URLSearchParams(o.query ?? {}),
    params: path.match(route.pattern)!.slice(1).map(decodeURIComponent),
    headers: { 'content-type': 'application/json', ...o.headers },
    rawBody: o.body === undefined ? '' : JSON.stringify(o.body),
  };
  return route.handle(request) as SimReply;
}

const address = (name: string, city: string, postcode: string) => ({ name, line1: '1 High Street', city, postcode, country: 'GB' });
const ACME_BUY = {
  service: 'acme_ground',
  reference: 'shp_crowded_1',
  from: address('Sender', 'London', 'EC1A 1BB'),
  to: address('Buyer', 'Leeds', 'LS1 1AA'),
  parcel: { weight_g: 1_200, length_mm: 300, width_mm: 200, height_mm: 100 },
};

describe('the carrier simulator among the tracking bench parcels', () => {
  it('buys, replays a buy by its Idempotency-Key, looks up and voids by reference without reading every label it holds', () => {
    const sim = crowded();
    const bought = send(sim.acme, 'POST', '/acme/v2/labels', { body: ACME_BUY, headers: { 'idempotency-key': 'key-1' } });
    expect(bought.status).toBe(201);
    const replayed = send(sim.acme, 'POST', '/acme/v2/labels', { body: ACME_BUY, headers: { 'idempotency-key': 'key-1' } });
    expect(replayed).toMatchObject({ status: 200, headers: { 'idempotent-replayed': 'true' } });
    expect((replayed.body as { tracking_number: string }).tracking_number).toBe((bought.body as { tracking_number: string }).tracking_number);
    expect(() => send(sim.acme, 'POST', '/acme/v2/labels', { body: { ...ACME_BUY, service: 'acme_express' }, headers: { 'idempotency-key': 'key-1' } })).toThrow(
      expect.objectContaining({ status: 422, code: 'idempotency_key_reused' }),
    );

    const found = send(sim.acme, 'GET', '/acme/v2/labels', { query: { reference: 'bench-acme-7' } });
    expect((found.body as { data: Array<{ reference: string }> }).data.map((l) => l.reference)).toEqual(['bench-acme-7']);
    const voided = send(sim.acme, 'POST', '/acme/v2/labels/void', { body: { reference: 'shp_crowded_1' } });
    expect(voided).toMatchObject({ status: 200, body: { reference: 'shp_crowded_1', status: 'voided' } });
    const consignments = send(sim.swiftpost, 'GET', '/swiftpost/api/consignments', { query: { customerReference: 'bench-swiftpost-9' } });
    expect((consignments.body as { consignments: Array<{ customerReference: string }> }).consignments.map((c) => c.customerReference)).toEqual([
      'bench-swiftpost-9',
    ]);

    expect(sim.reads()).toBeLessThan(10);
  });

  it('still lists every label of a carrier when no reference is given', () => {
    const sim = crowded();
    const all = send(sim.acme, 'GET', '/acme/v2/labels');
    expect((all.body as { data: unknown[] }).data).toHaveLength(PARCELS);
  });
});
