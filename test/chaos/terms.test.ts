// The chaos run's labels abroad and return labels (tools/chaos/terms.ts): which carriers take part
// comes from their declared capabilities, and a run of any size has every kind in each ten purchases.
import { describe, expect, it } from 'vitest';
import { CARRIER_MODULES, REAL_CARRIER_MODULES } from '../../carriers/index.js';
import { seededRandom } from '../../tools/chaos/random.js';
import { INTERNATIONAL_ROUTES } from '../../tools/chaos/routes.js';
import { batchItemPlan, INTERNATIONAL_CARRIERS, purchasePlan, RETURN_CARRIERS, type TermsPools } from '../../tools/chaos/terms.js';

const pools: TermsPools = {
  GBP: { international: [{ route: INTERNATIONAL_ROUTES.GBP[0], service: 'acme_express' }], returns: ['acme_ground'] },
  USD: { international: [], returns: [] },
};

describe('chaos: labels abroad and returns', () => {
  it('takes the carriers that declare they ship abroad or make returns, and no other', () => {
    for (const { definition } of [...CARRIER_MODULES, ...REAL_CARRIER_MODULES]) {
      expect(INTERNATIONAL_CARRIERS.has(definition.code), definition.code).toBe(definition.capabilities.international === true);
      expect(RETURN_CARRIERS.has(definition.code), definition.code).toBe(definition.capabilities.returns === true);
    }
    expect(INTERNATIONAL_CARRIERS.has('acme')).toBe(true);
  });

  it('plans two purchases abroad with customs, one return label and two returns from a shipment in each ten', () => {
    const random = seededRandom(3);
    const plans = Array.from({ length: 10 }, (_, i) => purchasePlan(i, 'GBP', pools, random, `k-${i}`));
    expect(plans.map((p) => p.kind)).toEqual(['domestic', 'domestic', 'international', 'domestic', 'return', 'domestic', 'domestic', 'international', 'domestic', 'domestic']);
    expect(plans.filter((p) => p.returnAfter).map((p) => p.kind)).toEqual(['international', 'domestic']);
    const abroad = plans[2].body as { from: { country: string; phone: string }; to: { country: string }; customs: { items: Array<{ weight_g: number }> }; parcel: { weight_g: number } };
    expect(abroad.from.country).not.toBe(abroad.to.country);
    expect(abroad.from.phone).toBeDefined();
    // The declaration's lines weigh no more than the parcel, as the contract asks.
    expect(abroad.customs.items.reduce((sum, l) => sum + l.weight_g, 0)).toBeLessThanOrEqual(abroad.parcel.weight_g);
    expect(plans[4].body).toMatchObject({ service: 'acme_ground', is_return: true });
    // The domestic label that is then returned is bought from a carrier that makes returns.
    expect(plans[9].body).toMatchObject({ service: 'acme_ground' });
  });

  it('buys at home where no carrier offers the kind', () => {
    const random = seededRandom(3);
    const plans = Array.from({ length: 10 }, (_, i) => purchasePlan(i, 'USD', pools, random, `k-${i}`));
    expect(new Set(plans.map((p) => p.kind))).toEqual(new Set(['domestic']));
    expect(plans.some((p) => p.returnAfter)).toBe(false);
    expect(plans.every((p) => !('customs' in p.body) && !('is_return' in p.body))).toBe(true);
  });

  it('puts items abroad and return labels in a batch', () => {
    const items = Array.from({ length: 10 }, (_, i) => batchItemPlan(i, 'GBP', pools, ['swiftpost_standard'], `b-${i}`));
    expect(items.filter((x) => 'customs' in x).map((x) => x.reference)).toEqual(['b-3', 'b-8']);
    expect(items.filter((x) => x.is_return).map((x) => x.reference)).toEqual(['b-6']);
  });
});
