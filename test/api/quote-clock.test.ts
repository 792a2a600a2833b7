import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceForPurchase } from '../../activities/purchase.js';
import { quoteShipment } from '../../api/services/quote.js';
import { createPriceCache, createSandboxAdapter, type CarrierAdapter } from '../../carriers/index.js';
import { upsDefinition } from '../../carriers/ups/index.js';
import { findAccount } from '../../db/index.js';
import type { Address, Parcel } from '../../domain/index.js';
import { createAccount, insertPendingShipment, startTestStack, type TestStack } from '../support/stack.js';

// A quote's 15 minutes and the price cache's minutes on one fake clock, with a UPS whose price moves.

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({}, { workers: false });
});
afterAll(async () => {
  await stack?.stop();
});

const FROM: Address = { name: 'Acme Widgets', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' };
const TO: Address = { name: 'Happy Dog', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' };
const PARCEL: Parcel = { weight_g: 1_500, length_mm: 300, width_mm: 200, height_mm: 100 };
const MINUTE = 60_000;

function world() {
  let clock = Date.parse('2026-06-01T12:00:00Z');
  const carrier = { net: 1_000, calls: 0 };
  const adapter: CarrierAdapter = {
    ...createSandboxAdapter(upsDefinition),
    rate: async () => {
      carrier.calls += 1;
      return [{ serviceCode: 'ups_ground', net: carrier.net, currency: 'USD', estimatedDeliveryDays: 5 }];
    },
  };
  const catalog = {
    definitions: [upsDefinition],
    adapter: () => adapter,
    findService: (code: string) => {
      const service = upsDefinition.services.find((s) => s.code === code);
      return service && { carrier: upsDefinition, service };
    },
    priceCache: createPriceCache({ ttlMs: 3 * MINUTE, now: () => clock }),
  };
  const now = () => new Date(clock);
  return { catalog, carrier, now, advance: (ms: number) => (clock += ms) };
}

async function setup() {
  const acct = await createAccount(stack, { currency: 'USD', vatRate: '0' });
  const account = (await findAccount(stack.database.db, acct.id))!;
  const shipmentId = await insertPendingShipment(stack, acct.id, new Date(Date.now() + 60 * MINUTE));
  const w = world();
  const ctx = { catalog: w.catalog, db: stack.database.db, now: w.now };
  const purchase = () =>
    priceForPurchase(ctx, { serviceCode: 'ups_ground', from: FROM, to: TO, parcel: PARCEL, vatRateBp: 0, currency: 'USD', shipmentId, accountId: acct.id });
  const quote = () => quoteShipment(ctx, { account, livemode: true }, PARCEL, FROM, TO);
  return { ...w, purchase, quote };
}

const failureOf = async (p: Promise<unknown>) => {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
};

describe('a carrier-priced quote on the clock', () => {
  it('is charged exactly for 15 minutes whatever the carrier asks meanwhile', async () => {
    const w = await setup();
    const q = await w.quote();
    expect(q.items).toEqual([expect.objectContaining({ service: expect.objectContaining({ code: 'ups_ground' }), expires_at: new Date(w.now().getTime() + 15 * MINUTE).toISOString() })]);
    w.carrier.net = 1_500;
    w.advance(15 * MINUTE - 1);
    expect((await w.purchase()).price).toEqual({ net: 1_000, vat: 0, gross: 1_000, currency: 'USD' });
    expect(w.carrier.calls).toBe(1);
  });

  it('after 15 minutes: a higher price is price_changed, a lower one is charged as the carrier asks it', async () => {
    const w = await setup();
    await w.quote();
    w.carrier.net = 1_200;
    w.advance(15 * MINUTE);
    const failure = await failureOf(w.purchase());
    expect(failure.type).toBe('price_changed');
    expect(failure.nonRetryable).toBe(true);
    w.carrier.net = 900;
    w.advance(3 * MINUTE); // past the cache's minutes: the carrier is asked again
    expect((await w.purchase()).price).toEqual({ net: 900, vat: 0, gross: 900, currency: 'USD' });
  });

  it('serves quotes from the cache for its minutes, then asks the carrier again', async () => {
    const w = await setup();
    await w.quote();
    w.carrier.net = 1_100;
    w.advance(3 * MINUTE - 1);
    expect((await w.quote()).items[0].price.gross).toBe('10.00');
    expect(w.carrier.calls).toBe(1);
    w.advance(1);
    expect((await w.quote()).items[0].price.gross).toBe('11.00');
    expect(w.carrier.calls).toBe(2);
  });
});
