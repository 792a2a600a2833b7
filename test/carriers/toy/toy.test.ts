import { describe, expect, it } from 'vitest';
import { createCarrierRegistry, createSandboxAdapter, quoteServices, type CarrierModule } from '../../../carriers/index.js';
import { describeCarrierAdapterContract } from '../../support/carrier-kit/index.js';
import { FROM, PARCEL, TO, TO_FRANCE } from '../sim-helpers.js';
import { createToyAdapter } from './adapter.js';
import { toyDefinition } from './definition.js';

describeCarrierAdapterContract('toy (in process)', async () => {
  const { adapter, scan } = createToyAdapter();
  return { adapter, addScan: async (trackingNumber, status) => scan(trackingNumber, status) };
});

describeCarrierAdapterContract('toy sandbox', async () => ({ adapter: createSandboxAdapter(toyDefinition) }));

describe('toy carrier in a registry', () => {
  // What the one registry line would add, here in a registry of its own.
  const toyCarrier: CarrierModule = { definition: toyDefinition, createHttpAdapter: () => createToyAdapter().adapter };
  const registry = createCarrierRegistry({ baseUrls: { toy: 'unused://' } }, [toyCarrier]);

  it('is quoted domestically and not abroad', () => {
    expect(quoteServices(registry.definitions, PARCEL, FROM, TO).map((q) => [q.service.code, q.net])).toEqual([['toy_economy', 410]]);
    expect(quoteServices(registry.definitions, PARCEL, FROM, TO_FRANCE)).toEqual([]);
  });

  it('has a sandbox and a live adapter', () => {
    expect(registry.findService('toy_economy')?.carrier.code).toBe('toy');
    expect(registry.adapter('toy', false).definition).toBe(toyDefinition);
    expect(registry.adapter('toy', true).definition).toBe(toyDefinition);
  });
});
