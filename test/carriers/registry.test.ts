import { describe, expect, it } from 'vitest';
import {
  acmeDefinition,
  ADDRESS_VERIFIERS,
  ALL_CARRIER_MODULES,
  carriersWhere,
  CARRIER_MODULES,
  createCarrierRegistry,
  REAL_CARRIER_MODULES,
  defaultCarrierBaseUrls,
  quoteServices,
  swiftpostDefinition,
} from '../../carriers/index.js';
import { FROM, PARCEL, TO, TO_FRANCE } from './sim-helpers.js';

describe('carrier registry', () => {
  const registry = createCarrierRegistry({ baseUrls: { acme: 'http://127.0.0.1:1/acme/v2' } });

  it('lists every carrier module and finds carriers and services', () => {
    expect(registry.definitions.map((d) => d.code)).toEqual(CARRIER_MODULES.map((m) => m.definition.code));
    expect(registry.carrier('acme')).toBe(acmeDefinition);
    expect(registry.carrier('nobody')).toBeUndefined();
    expect(registry.findService('swiftpost_nextday')).toMatchObject({ carrier: swiftpostDefinition, service: { code: 'swiftpost_nextday' } });
    expect(registry.findService('acme_teleport')).toBeUndefined();
  });

  it('gives one cached adapter per carrier and mode: sandbox for test mode, HTTP for live', async () => {
    const sandbox = registry.adapter('acme', false);
    expect(registry.adapter('acme', false)).toBe(sandbox);
    const live = registry.adapter('acme', true);
    expect(live).not.toBe(sandbox);
    expect(registry.adapter('acme', true)).toBe(live);
    // The sandbox touches no network: its base URL (port 1) is never used.
    const purchase = await sandbox.buy({ reference: 'shp_x', serviceCode: 'acme_ground', from: FROM, to: TO, parcel: PARCEL });
    expect(purchase.trackingNumber).toBe(acmeDefinition.trackingNumberFor('shp_x'));
  });

  it('refuses unknown carriers, and live adapters without a configured URL', () => {
    expect(() => registry.adapter('nobody', false)).toThrow(/unknown carrier/);
    expect(() => registry.adapter('swiftpost', true)).toThrow(/no base URL/);
    expect(registry.adapter('swiftpost', false).definition).toBe(swiftpostDefinition);
  });

  it('maps each carrier to its path on the simulator', () => {
    const urls = defaultCarrierBaseUrls('http://127.0.0.1:4010/');
    expect(urls).toMatchObject({ acme: 'http://127.0.0.1:4010/acme/v2', swiftpost: 'http://127.0.0.1:4010/swiftpost/api' });
    // Every registered carrier with a simulator path, a new one included.
    const simulated = [...CARRIER_MODULES, ...REAL_CARRIER_MODULES].filter((m) => m.simulatorPath).map((m) => m.definition.code);
    expect(Object.keys(urls).sort()).toEqual([...simulated].sort());
    expect(urls).toMatchObject({ ups: 'http://127.0.0.1:4010/ups', usps: 'http://127.0.0.1:4010/usps' });
  });

  it("derives who books pickups and who checks addresses from the carriers' capabilities", () => {
    const all = [...CARRIER_MODULES, ...REAL_CARRIER_MODULES].map((m) => m.definition);
    expect(ALL_CARRIER_MODULES.map((m) => m.definition)).toEqual(all);
    expect(carriersWhere((c) => c.pickups)).toEqual(all.filter((d) => d.capabilities.pickups).map((d) => d.code));
    expect(carriersWhere((c) => c.pickups)).toEqual(expect.arrayContaining(['acme', 'ups', 'usps']));
    // The postal service whose register US addresses are is asked first; UPS when it does not answer.
    expect(ADDRESS_VERIFIERS).toEqual(['usps', 'ups']);
  });
});

describe('real carriers in the registry', () => {
  const ups = { CLIENT_ID: 'id', CLIENT_SECRET: 'secret', ACCOUNT_NUMBER: 'A1B2C3' };
  const usps = { CLIENT_ID: 'id', CLIENT_SECRET: 'secret', CRID: '1', MID: '123456', MANIFEST_MID: '123457', ACCOUNT_NUMBER: '1' };
  const baseUrls = { ups: 'http://127.0.0.1:1/ups', usps: 'http://127.0.0.1:1/usps' };
  const codes = (options: Parameters<typeof createCarrierRegistry>[0]) => createCarrierRegistry(options).definitions.map((d) => d.code);

  it('are on only with their URL and every credential', () => {
    expect(codes({ baseUrls })).toEqual(['acme', 'swiftpost']);
    expect(codes({ baseUrls, credentials: { ups, usps } })).toEqual(['acme', 'swiftpost', 'ups', 'usps']);
    expect(codes({ baseUrls: { usps: baseUrls.usps }, credentials: { ups, usps } })).toEqual(['acme', 'swiftpost', 'usps']);
    const { CLIENT_SECRET: _secret, ...partial } = ups;
    expect(codes({ baseUrls, credentials: { ups: partial } })).toEqual(['acme', 'swiftpost']);
  });

  it('give their live adapters the credentials, and are left out of rate-card quotes', () => {
    const registry = createCarrierRegistry({ baseUrls, credentials: { ups, usps } });
    expect(registry.adapter('ups', true).definition.code).toBe('ups');
    expect(registry.adapter('usps', true).definition.code).toBe('usps');
    // Priced by their rating APIs only: no service has a rate card, so quotes and purchases skip them.
    expect(quoteServices(registry.definitions, PARCEL, FROM, TO).map((q) => q.carrier.code)).not.toContain('ups');
    expect(registry.findService('ups_ground')?.service.rate(PARCEL, FROM, TO)).toBeNull();
  });
});

describe('quoteServices', () => {
  const definitions = [acmeDefinition, swiftpostDefinition];

  it('prices all four services distinctly for a typical domestic parcel, cheapest first', () => {
    const quotes = quoteServices(definitions, PARCEL, FROM, TO);
    expect(quotes.map((q) => [q.service.code, q.net])).toEqual([
      ['acme_ground', 595],
      ['swiftpost_standard', 665],
      ['swiftpost_nextday', 1240],
      ['acme_express', 1395],
    ]);
    expect(quotes.every((q) => Number.isInteger(q.net) && q.carrier.services.includes(q.service))).toBe(true);
  });

  it('prices distinctly in every weight band the four services share', () => {
    for (const weight_g of [500, 1500, 4000, 9000]) {
      const nets = quoteServices(definitions, { ...PARCEL, weight_g }, FROM, TO).map((q) => q.net);
      expect(nets).toHaveLength(4);
      expect(new Set(nets).size).toBe(4);
    }
  });

  it('adds international surcharges and leaves out domestic-only services and carriers abroad', () => {
    const quotes = quoteServices(definitions, PARCEL, FROM, TO_FRANCE);
    // SwiftPost takes no customs: its card prices Standard abroad, but the carrier does not ship there for us.
    expect(quotes.map((q) => [q.service.code, q.net])).toEqual([
      ['acme_ground', 1795],
      ['acme_express', 3195],
    ]);
  });

  it('leaves out services whose bounds the parcel exceeds', () => {
    const long = { weight_g: 2_000, length_mm: 1_100, width_mm: 100, height_mm: 100 };
    expect(quoteServices(definitions, long, FROM, TO).map((q) => q.service.code)).toEqual(['acme_ground', 'swiftpost_standard']);
    // Length plus girth for SwiftPost Standard: 1100 + 2 × (500 + 400) = 2900 fits the 3000 limit,
    // 1150 + 2 × (500 + 500) = 3150 does not.
    const bulky = { weight_g: 2_000, length_mm: 1_100, width_mm: 500, height_mm: 400 };
    expect(quoteServices(definitions, bulky, FROM, TO).map((q) => q.service.code)).toEqual(['acme_ground', 'swiftpost_standard']);
    const bulkier = { weight_g: 2_000, length_mm: 1_150, width_mm: 500, height_mm: 500 };
    expect(quoteServices(definitions, bulkier, FROM, TO).map((q) => q.service.code)).toEqual(['acme_ground']);
    const heavy = { ...PARCEL, weight_g: 40_000 };
    expect(quoteServices(definitions, heavy, FROM, TO)).toEqual([]);
  });

  it('breaks price ties by service code', () => {
    const flat = (code: string) => ({ code, name: code, bounds: { maxWeightG: 1000, maxSideMm: 1000 }, estimatedDeliveryDays: 1, rate: () => 500 });
    const carrier = { ...acmeDefinition, services: [flat('acme_b'), flat('acme_a')] };
    expect(quoteServices([carrier], { ...PARCEL, weight_g: 100 }, FROM, TO).map((q) => q.service.code)).toEqual(['acme_a', 'acme_b']);
  });
});

describe('tracking-number formats', () => {
  it('acme: ACM and 12 digits; swiftpost: SP, 11 digits, a Luhn check digit, GB', () => {
    const acme = acmeDefinition.trackingNumberFor('shp_1');
    expect(acme).toMatch(/^ACM\d{12}$/);
    const sp = swiftpostDefinition.trackingNumberFor('shp_1');
    expect(sp).toMatch(/^SP\d{12}GB$/);
    expect(swiftpostDefinition.isTrackingNumber(sp)).toBe(true);
    const wrongCheck = `${sp.slice(0, 13)}${(Number(sp[13]) + 1) % 10}GB`;
    expect(swiftpostDefinition.isTrackingNumber(wrongCheck)).toBe(false);
    expect(acmeDefinition.isTrackingNumber(sp)).toBe(false);
    expect(swiftpostDefinition.isTrackingNumber(acme)).toBe(false);
  });
});
