// What a refusal says, on the real stack over HTTP: every field path in one form, as the contract
// writes it (`shipments[3].parcel.weight_g`), whichever check found the fault; a pickup window
// bounded by what the carriers book; and a 404 that repeats only so much of what was asked for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capEchoes, contractPath } from '../../api/problem.js';
import { address, call, createAccount, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';

let stack: TestStack;
let acct: TestAccount;
beforeAll(async () => {
  stack = await startTestStack({ webhookAllowPrivate: true });
  acct = await createAccount(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const buy = (over: Record<string, unknown> = {}) => ({ service: 'acme_ground', from: address(), to: address({ city: 'Leeds', postcode: 'LS1 4AP' }), parcel: parcel(), ...over });
const paths = (answer: { body: { errors?: Array<{ path: string }> } }) => (answer.body.errors ?? []).map((e) => e.path);
/** A dotted index (`shipments.1`, `shipment_ids.0.x`) is the form the contract does not use. */
const DOTTED_INDEX = /(^|\.)\d+(\.|$)/;

describe('field paths', () => {
  it('name array items in brackets and properties after dots, on every endpoint and from every check', async () => {
    const cases: Array<{ path: string; body: unknown; expected: string[] }> = [
      // Schema validation inside an item, and the control-character check inside another.
      {
        path: '/api/v1/batches',
        body: { shipments: [buy({ reference: 'bell\u0007' }), buy({ parcel: { ...parcel(), weight_g: 'heavy' } })] },
        expected: ['shipments[0].reference', 'shipments[1].parcel.weight_g'],
      },
      { path: '/api/v1/scan_forms', body: { shipment_ids: ['shp_x', 7] }, expected: ['shipment_ids[1]'] },
      // An endpoint's own check of a list item.
      { path: '/api/v1/scan_forms', body: { shipment_ids: ['shp_nosuch0000000000000000000000'] }, expected: ['shipment_ids[0]'] },
      { path: '/api/v1/pickups', body: { carrier: 'acme', address: address(), window: { start: 'soon', end: 'later' }, shipment_ids: [5] }, expected: ['window.start', 'window.end', 'shipment_ids[0]'] },
      { path: '/api/v1/webhook_endpoints', body: { url: 'https://example.com/hooks', events: ['shipment.purchased', 'nope'] }, expected: ['events[1]'] },
      { path: '/api/v1/quotes', body: { from: address(), to: address({ line1: 'bell\u0007here' }), parcel: { ...parcel(), weight_g: 'x' } }, expected: ['to.line1', 'parcel.weight_g'] },
      // A field named with digits is a property, not an item.
      { path: '/api/v1/quotes', body: { from: address(), to: address(), parcel: { ...parcel(), 1: 2 } }, expected: ['parcel.1'] },
      { path: '/api/v1/shipments', body: buy({ to: { ...address(), country: 'gbr' } }), expected: ['to.country'] },
    ];
    for (const c of cases) {
      const answer = await call(stack, 'POST', c.path, { key: acct.testKey, body: c.body });
      expect(answer.status, `${c.path}: ${answer.text}`).toBe(422);
      expect(answer.body.code).toBe('validation_failed');
      expect(paths(answer).filter((p) => DOTTED_INDEX.test(p) && !p.startsWith('parcel.')), c.path).toEqual([]);
      for (const path of c.expected) expect(paths(answer), `${c.path}: ${answer.text}`).toContain(path);
    }
  });

  it('are written from the request: an index where the data has a list, a property where it has an object', () => {
    const request = { body: { shipments: [{ parcel: {} }], parcel: { 1: 'x' } }, query: { status: ['a', 'b'] }, headers: {}, params: {} };
    expect(contractPath('shipments.0.parcel.weight_g', request)).toBe('shipments[0].parcel.weight_g');
    expect(contractPath('parcel.1', request)).toBe('parcel.1');
    expect(contractPath('querystring.status.1', request)).toBe('querystring.status[1]');
    expect(contractPath('shipment_ids[2]', request)).toBe('shipment_ids[2]');
    expect(contractPath('(body)', request)).toBe('(body)');
    expect(contractPath('3', { ...request, body: [1, 2, 3, 4] })).toBe('[3]');
  });
});

describe('pickup windows', () => {
  const hours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
  const pickup = (carrier: string, start: string, end: string) =>
    call(stack, 'POST', '/api/v1/pickups', { key: acct.testKey, body: { carrier, address: address(), window: { start, end }, phone: '202 555 0147' } });

  it('refuse a start further ahead than the carriers book (a year) and a window longer than a day, naming the field', async () => {
    for (const carrier of ['acme', 'ups', 'usps']) {
      const year9999 = await pickup(carrier, '9999-01-01T09:00:00Z', '9999-01-01T17:00:00Z');
      expect(year9999.status, year9999.text).toBe(422);
      expect(year9999.body.code).toBe('validation_failed');
      expect(year9999.body.errors).toEqual([{ path: 'window.start', message: expect.stringContaining('365 days') }]);
      const longWindow = await pickup(carrier, hours(24), hours(24 + 400 * 24));
      expect(longWindow.status, longWindow.text).toBe(422);
      expect(longWindow.body.errors).toEqual([{ path: 'window.end', message: expect.stringContaining('24 hours') }]);
      const justOver = await pickup(carrier, hours(366 * 24), hours(366 * 24 + 4));
      expect(justOver.body.errors).toEqual([{ path: 'window.start', message: expect.any(String) }]);
      expect((await pickup(carrier, hours(24), hours(49))).body.errors).toEqual([{ path: 'window.end', message: expect.any(String) }]);
    }
  });

  it('book what is within the bounds', async () => {
    const farthest = await pickup('acme', hours(364 * 24), hours(364 * 24 + 24));
    expect(farthest.status, farthest.text).toBe(201);
    expect(farthest.body).toMatchObject({ object: 'pickup', status: 'scheduled', carrier: 'acme' });
  });
});

describe('404 details', () => {
  it('repeat at most 64 characters of the requested id, with an ellipsis', async () => {
    const id = `shp_${'a'.repeat(10_000)}`;
    for (const path of [`/api/v1/shipments/${id}`, `/api/v1/batches/${id.replace('shp_', 'bat_')}`, `/api/v1/pickups/${id}`, `/api/v1/no_such_route/${id}`]) {
      const answer = await call(stack, 'GET', path, { key: acct.testKey });
      expect(answer.status, path.slice(0, 40)).toBe(404);
      expect(answer.body.code).toBe('not_found');
      expect(answer.body.detail.length).toBeLessThan(120);
      expect(answer.body.detail).toContain('…');
      expect(answer.text.length).toBeLessThan(1_000);
    }
    const short = await call(stack, 'GET', '/api/v1/shipments/shp_nosuch', { key: acct.testKey });
    expect(short.body.detail).toBe('No shipment shp_nosuch.');
  });

  it('cut each long run of the detail, whole characters only', () => {
    expect(capEchoes(`No shipment ${'é'.repeat(100)}.`)).toBe(`No shipment ${'é'.repeat(64)}…`);
    expect(capEchoes(`No shipment ${'😀'.repeat(70)}`)).toBe(`No shipment ${'😀'.repeat(64)}…`);
  });
});
