import { afterAll, describe, expect, it } from 'vitest';
import { fitsBounds, PARCEL_LIMITS, type ScanStatus } from '../../../domain/index.js';
import { describeFaultChecks, type CarrierFault, type CarrierOperation } from './faults.js';
import { findSampleOrder, PARCELS, RECIPIENTS, SENDER, uniqueReference, withNeededPhones } from './samples.js';
import { CarrierError, type CarrierAdapter, type CarrierDefinition, type Purchase, type StoredPurchase } from '../../../carriers/index.js';

export type { CarrierFault, CarrierOperation } from './faults.js';

export interface ContractSetup {
  adapter: CarrierAdapter;
  /** Makes the carrier report a scan of this tracking number from now on. Without it, scan checks are left out. */
  addScan?: (trackingNumber: string, status: ScanStatus) => Promise<void>;
  /**
   * Makes the carrier's next answer to `operation` for a request that mentions `match` (in its path,
   * query or body) fail as `fault` says. `match` is one of our references, or a tracking number; for
   * a cancel the kit sets both, and the one the carrier's cancel does not mention is never used.
   * Without it, the checks of how the adapter classifies failures ("Errors" in carriers/README.md)
   * are left out.
   */
  failNext?: (operation: CarrierOperation, match: string, fault: CarrierFault) => Promise<void>;
  teardown?: () => Promise<void>;
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
    const order = await findSampleOrder(ctx.adapter);

    afterAll(async () => {
      await ctx.teardown?.();
    });

    /** A purchase request, under a new reference, for a service, route and parcel the carrier sells. */
    function newRequest() {
      if (!order) throw new Error(`${definition.code} sells no service for the kit's sample parcels and routes`);
      const request = { reference: uniqueReference(definition.code), serviceCode: order.service.code, from: order.from, to: order.to, parcel: order.parcel };
      return withNeededPhones(ctx.adapter, request);
    }

    /** The purchase part of a buy's answer: what findPurchase reports later. */
    const purchaseOf = ({ reference, trackingNumber, serviceCode, cancelled }: Purchase): Purchase => ({ reference, trackingNumber, serviceCode, cancelled });

    /** The purchase as the platform stores it when it is bought: what a cancel is given. */
    const storedOf = ({ reference, trackingNumber, carrierShipmentId }: Purchase): StoredPurchase => ({ reference, trackingNumber, carrierShipmentId: carrierShipmentId ?? null });

    async function buyOne() {
      const request = newRequest();
      const bought = await ctx.adapter.buy(request);
      return { request, purchase: purchaseOf(bought), stored: storedOf(bought) };
    }

    it('has a sane definition: codes, names, bounds, delivery days, rate limit', () => {
      // Lower case, words joined by underscores (`dhl_express`), as the contract names carriers.
      expect(definition.code).toMatch(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/);
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
      if (definition.pricing === 'carrier') {
        // No rate card: every service is priced by the carrier alone (the rating check below).
        for (const service of definition.services) expect(service.rate(PARCELS[0], SENDER, RECIPIENTS[0])).toBeNull();
        return;
      }
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

    it('declares its pricing and capabilities', () => {
      expect(['rate_card', 'carrier']).toContain(definition.pricing);
      expect(['cancel', 'refund_request', 'none']).toContain(definition.capabilities.void);
      expect(['push', 'poll']).toContain(definition.capabilities.tracking);
      for (const format of definition.capabilities.labelFormats) expect(['gif', 'png', 'pdf', 'zpl']).toContain(format);
    });

    it('rates through the adapter: the rate card exactly, for a carrier priced by its cards', async () => {
      if (!order) throw new Error(`${definition.code} sells no service for the kit's sample parcels and routes`);
      const rates = await ctx.adapter.rate({ from: order.from, to: order.to, parcel: order.parcel });
      expect(rates.length).toBeGreaterThan(0);
      for (const rate of rates) {
        expect(Number.isSafeInteger(rate.net) && rate.net > 0, `${rate.serviceCode} priced ${rate.net}`).toBe(true);
        expect(rate.currency).toMatch(/^[A-Z]{3}$/);
        const service = definition.services.find((s) => s.code === rate.serviceCode);
        expect(service, rate.serviceCode).toBeDefined();
        if (definition.pricing === 'rate_card') expect(rate.net).toBe(service?.rate(order.parcel, order.from, order.to));
      }
      const one = await ctx.adapter.rate({ from: order.from, to: order.to, parcel: order.parcel, serviceCode: order.service.code });
      expect(one.map((r) => r.serviceCode)).toEqual([order.service.code]);
    });

    it("checks addresses against the carrier's limits without changing them", () => {
      const from = order?.from ?? SENDER;
      const to = order?.to ?? RECIPIENTS[0];
      expect(ctx.adapter.checkAddress(from, to)).toEqual([]);
      // A name far wider than any carrier's field is named, never cut to fit.
      const wide = { ...to, name: 'N'.repeat(200) };
      const problems = ctx.adapter.checkAddress(from, wide);
      if (definition.pricing === 'carrier') expect(problems.map((p) => p.path)).toContain('to.name');
      for (const problem of problems) expect(problem.message.trim()).not.toBe('');
      expect(wide.name).toHaveLength(200);
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
      const request = newRequest();
      const bought = await ctx.adapter.buy(request);
      expect(purchaseOf(bought)).toEqual({
        reference: request.reference,
        serviceCode: request.serviceCode,
        trackingNumber: expect.any(String),
        cancelled: false,
      });
      expect(definition.isTrackingNumber(bought.trackingNumber)).toBe(true);
      // The carrier's own label in a format it declares, or none where the platform draws labels.
      if (definition.capabilities.labelFormats.length === 0) expect(bought.label).toBeNull();
      else {
        expect(definition.capabilities.labelFormats).toContain(bought.label?.format);
        expect(bought.label?.contentBase64).toMatch(/^[A-Za-z0-9+/]+=*$/);
      }
      if (bought.billed !== null) {
        expect(Number.isSafeInteger(bought.billed.amount) && bought.billed.amount >= 0).toBe(true);
        expect(bought.billed.currency).toMatch(/^[A-Z]{3}$/);
      }
    });

    it('buys once per reference: a second buy returns the same label', async () => {
      const { request, purchase } = await buyOne();
      // A second buy under a reference is a retried step, which says so.
      const again = await ctx.adapter.buy({ ...request, earlierAttempt: true });
      expect(purchaseOf(again)).toEqual(purchase);
    });

    it('refuses an unknown service definitively', async () => {
      const request = {
        reference: uniqueReference(definition.code),
        serviceCode: `${definition.code}_no_such_service`,
        from: order?.from ?? SENDER,
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
      const { purchase, stored } = await buyOne();
      // A carrier whose void is a refund request cancels outright until the label is manifested.
      const done = definition.capabilities.void === 'refund_request' ? ['cancelled', 'refund_requested'] : ['cancelled'];
      const outcome = await ctx.adapter.cancel(stored);
      expect(done).toContain(outcome.kind);
      expect(purchaseOf((await ctx.adapter.findPurchase(purchase.reference, { stored }))!)).toEqual({ ...purchase, cancelled: true });
      expect(await ctx.adapter.cancel(stored)).toEqual(outcome);
      expect((await ctx.adapter.findPurchase(purchase.reference, { stored }))?.cancelled).toBe(true);
    });

    it('reports no scans for a label nobody has scanned', async () => {
      const { purchase } = await buyOne();
      expect(await ctx.adapter.scans(purchase.trackingNumber)).toEqual([]);
    });

    if (ctx.adapter.scansBatch) {
      it('answers many tracking numbers in one call as it answers each alone (capabilities.trackingBatch)', async () => {
        expect(definition.capabilities.trackingBatch ?? 0).toBeGreaterThan(1);
        const [a, b] = [(await buyOne()).purchase, (await buyOne()).purchase];
        if (addScan) await addScan(a.trackingNumber, 'in_transit');
        const answer = await ctx.adapter.scansBatch!([a.trackingNumber, b.trackingNumber]);
        expect(answer.get(a.trackingNumber)).toEqual(await ctx.adapter.scans(a.trackingNumber));
        expect(answer.get(b.trackingNumber)).toEqual(await ctx.adapter.scans(b.trackingNumber));
      });
    }

    if (ctx.failNext) describeFaultChecks({ adapter: ctx.adapter, failNext: ctx.failNext, newRequest, buyOne });

    if (addScan) {
      it('reports injected scans, oldest first, each with a stable id', async () => {
        const { purchase } = await buyOne();
        await addScan(purchase.trackingNumber, 'in_transit');
        await addScan(purchase.trackingNumber, 'out_for_delivery');
        await addScan(purchase.trackingNumber, 'delivered');
        const scans = await ctx.adapter.scans(purchase.trackingNumber);
        expect(scans.map((s) => s.status)).toEqual(['in_transit', 'out_for_delivery', 'delivered']);
        // The carrier's own code beside ours: a string as it sent it, or null when it sends none.
        for (const scan of scans) expect(scan.carrierCode === null || (typeof scan.carrierCode === 'string' && scan.carrierCode !== '')).toBe(true);
        expect(new Set(scans.map((s) => s.id)).size).toBe(3);
        const times = scans.map((s) => Date.parse(s.occurredAt));
        expect(times.every((t, i) => !Number.isNaN(t) && (i === 0 || t >= times[i - 1]))).toBe(true);
        expect((await ctx.adapter.scans(purchase.trackingNumber)).map((s) => s.id)).toEqual(scans.map((s) => s.id));
      });

      it('refuses to cancel a scanned label, as an outcome with its reason (spec §3 rule 2)', async () => {
        const { purchase, stored } = await buyOne();
        await addScan(purchase.trackingNumber, 'in_transit');
        const outcome = await ctx.adapter.cancel(stored);
        expect(outcome).toMatchObject({ kind: 'refused', reason: 'already_scanned', message: expect.any(String) });
        expect(outcome.kind === 'refused' && outcome.message.trim()).not.toBe('');
        expect((await ctx.adapter.findPurchase(purchase.reference, { stored }))?.cancelled).toBe(false);
      });
    }
  });
}
