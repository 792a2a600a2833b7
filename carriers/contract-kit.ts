import { afterAll, describe, expect, it } from 'vitest';
import { CARRIER_REASON, fitsBounds, PARCEL_LIMITS, type Address, type Parcel, type ScanStatus } from '../domain/index.js';
import { CarrierError, type CarrierAdapter, type CarrierDefinition, type ServiceDefinition } from './types.js';

export interface ContractSetup {
  adapter: CarrierAdapter;
  /** Makes the carrier report a scan of this tracking number from now on. Without it, scan checks are left out. */
  addScan?: (trackingNumber: string, status: ScanStatus) => Promise<void>;
  teardown?: () => Promise<void>;
}

const SENDER: Address = { name: 'Ada Sender', line1: '1 High Street', city: 'London', postcode: 'EC1A 1BB', country: 'GB' };
const RECIPIENTS: Address[] = [
  { name: 'Rita Recipient', line1: '2 Low Road', city: 'Leeds', postcode: 'LS1 1AA', country: 'GB' },
  { name: 'Rémi Destinataire', line1: '3 Rue Haute', city: 'Paris', postcode: '75001', country: 'FR' },
];
const PARCELS: Parcel[] = [
  { weight_g: 1_000, length_mm: 300, width_mm: 200, height_mm: 100 },
  { weight_g: 250, length_mm: 200, width_mm: 150, height_mm: 50 },
];

/** A service, route and parcel the carrier sells, for the purchase checks. */
function sampleOrder(definition: CarrierDefinition): { service: ServiceDefinition; parcel: Parcel; to: Address } | undefined {
  for (const to of RECIPIENTS) {
    for (const parcel of PARCELS) {
      for (const service of definition.services) {
        if (fitsBounds(parcel, service.bounds) && service.rate(parcel, SENDER, to) !== null) return { service, parcel, to };
      }
    }
  }
  return undefined;
}

let sequence = 0;
function uniqueReference(carrier: string): string {
  sequence += 1;
  return `kit_${carrier}_${Date.now().toString(36)}_${sequence}_${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The behaviour every carrier adapter must have, as a vitest suite. Call it at the top level of a
 * test file: `describeCarrierAdapterContract('acme over HTTP', async () => ({ adapter, addScan }))`.
 */
export function describeCarrierAdapterContract(name: string, setup: () => Promise<ContractSetup>): void {
  // The setup runs while the suite is collected (vitest awaits an async suite), because whether
  // it can inject scans decides which tests exist: checks that cannot run are not registered.
  describe(`carrier adapter contract: ${name}`, async () => {
    const ctx = await setup();
    const definition: CarrierDefinition = ctx.adapter.definition;
    const addScan = ctx.addScan;

    afterAll(async () => {
      await ctx.teardown?.();
    });

    async function buyOne(reference = uniqueReference(definition.code)) {
      const order = sampleOrder(definition);
      if (!order) throw new Error(`${definition.code} sells no service for the kit's sample parcels and routes`);
      const request = { reference, serviceCode: order.service.code, from: SENDER, to: order.to, parcel: order.parcel };
      return { request, purchase: await ctx.adapter.buy(request) };
    }

    it('has a sane definition: codes, names, bounds, delivery days, rate limit', () => {
      expect(definition.code).toMatch(/^[a-z][a-z0-9]*$/);
      expect(definition.name.trim()).not.toBe('');
      expect(definition.rateLimitPerSecond).toBeGreaterThan(0);
      expect(definition.services.length).toBeGreaterThan(0);
      const codes = definition.services.map((s) => s.code);
      expect(new Set(codes).size).toBe(codes.length);
      for (const service of definition.services) {
        expect(service.code.startsWith(`${definition.code}_`)).toBe(true);
        expect(service.name.trim()).not.toBe('');
        expect(Number.isInteger(service.estimatedDeliveryDays) && service.estimatedDeliveryDays > 0).toBe(true);
        const { maxWeightG, maxSideMm, maxLengthPlusGirthMm } = service.bounds;
        expect(Number.isInteger(maxWeightG) && maxWeightG > 0 && maxWeightG <= PARCEL_LIMITS.maxWeightG).toBe(true);
        expect(Number.isInteger(maxSideMm) && maxSideMm > 0 && maxSideMm <= PARCEL_LIMITS.maxSideMm).toBe(true);
        if (maxLengthPlusGirthMm !== undefined) expect(maxLengthPlusGirthMm).toBeGreaterThan(maxSideMm);
      }
    });

    it('quotes positive integer prices in minor units, or null where a route is not served', () => {
      let priced = 0;
      for (const service of definition.services) {
        for (const to of RECIPIENTS) {
          for (const parcel of PARCELS) {
            if (!fitsBounds(parcel, service.bounds)) continue;
            const net = service.rate(parcel, SENDER, to);
            if (net === null) continue;
            expect(Number.isSafeInteger(net) && net > 0, `${service.code} priced ${net}`).toBe(true);
            priced += 1;
          }
        }
      }
      expect(priced).toBeGreaterThan(0);
    });

    it('makes tracking numbers in its own format, the same for the same seed', () => {
      const a = definition.trackingNumberFor('seed-a');
      expect(definition.trackingNumberFor('seed-a')).toBe(a);
      expect(definition.trackingNumberFor('seed-b')).not.toBe(a);
      for (const seed of ['seed-a', 'seed-b', 'shp_01hzzzzzzzzzzzzzzzzzzzzzzz', '']) {
        expect(definition.isTrackingNumber(definition.trackingNumberFor(seed))).toBe(true);
      }
      for (const bad of ['', 'not a tracking number', ` ${a}`, `${a}\n`]) {
        expect(definition.isTrackingNumber(bad), bad).toBe(false);
      }
    });

    it('buys a label with a tracking number in the carrier format', async () => {
      const { request, purchase } = await buyOne();
      expect(purchase).toEqual({
        reference: request.reference,
        serviceCode: request.serviceCode,
        trackingNumber: expect.any(String),
        cancelled: false,
      });
      expect(definition.isTrackingNumber(purchase.trackingNumber)).toBe(true);
    });

    it('buys once per reference: a second buy returns the same label', async () => {
      const { request, purchase } = await buyOne();
      const again = await ctx.adapter.buy(request);
      expect(again).toEqual(purchase);
    });

    it('refuses an unknown service definitively', async () => {
      const order = sampleOrder(definition);
      const request = {
        reference: uniqueReference(definition.code),
        serviceCode: `${definition.code}_no_such_service`,
        from: SENDER,
        to: order?.to ?? RECIPIENTS[0],
        parcel: order?.parcel ?? PARCELS[0],
      };
      const error = await ctx.adapter.buy(request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CarrierError);
      expect((error as CarrierError).kind).toBe('definitive');
    });

    it('finds a purchase by reference, and null for an unknown reference', async () => {
      const { purchase } = await buyOne();
      expect(await ctx.adapter.findPurchase(purchase.reference)).toEqual(purchase);
      expect(await ctx.adapter.findPurchase(uniqueReference(definition.code))).toBeNull();
    });

    it('cancels a label, and cancelling again is harmless', async () => {
      const { purchase } = await buyOne();
      await ctx.adapter.cancel(purchase.reference);
      expect(await ctx.adapter.findPurchase(purchase.reference)).toEqual({ ...purchase, cancelled: true });
      await ctx.adapter.cancel(purchase.reference);
      expect((await ctx.adapter.findPurchase(purchase.reference))?.cancelled).toBe(true);
    });

    it('reports no scans for a label nobody has scanned', async () => {
      const { purchase } = await buyOne();
      expect(await ctx.adapter.scans(purchase.trackingNumber)).toEqual([]);
    });

    if (addScan) {
      it('reports injected scans, oldest first, each with a stable id', async () => {
        const { purchase } = await buyOne();
        await addScan(purchase.trackingNumber, 'in_transit');
        await addScan(purchase.trackingNumber, 'out_for_delivery');
        await addScan(purchase.trackingNumber, 'delivered');
        const scans = await ctx.adapter.scans(purchase.trackingNumber);
        expect(scans.map((s) => s.status)).toEqual(['in_transit', 'out_for_delivery', 'delivered']);
        expect(new Set(scans.map((s) => s.id)).size).toBe(3);
        const times = scans.map((s) => Date.parse(s.occurredAt));
        expect(times.every((t, i) => !Number.isNaN(t) && (i === 0 || t >= times[i - 1]))).toBe(true);
        expect((await ctx.adapter.scans(purchase.trackingNumber)).map((s) => s.id)).toEqual(scans.map((s) => s.id));
      });

      it('refuses to cancel a scanned label, definitively (spec §3 rule 2)', async () => {
        const { purchase } = await buyOne();
        await addScan(purchase.trackingNumber, 'in_transit');
        const error = await ctx.adapter.cancel(purchase.reference).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CarrierError);
        expect((error as CarrierError).kind).toBe('definitive');
        expect((error as CarrierError).details.reason).toBe(CARRIER_REASON.alreadyScanned);
        expect((error as CarrierError).message).not.toBe('');
        expect((await ctx.adapter.findPurchase(purchase.reference))?.cancelled).toBe(false);
      });
    }
  });
}
