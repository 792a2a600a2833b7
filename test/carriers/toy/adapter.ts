import { randomUUID } from 'node:crypto';
import { fitsBounds, type ScanStatus } from '../../../domain/index.js';
import { CarrierError, rateFromCards, type CarrierAdapter, type KnownPurchase, type Scan } from '../../../carriers/index.js';
import { toyDefinition } from './definition.js';

/**
 * The toy carrier's "remote" side, in process: it keeps bookings and scans as a real carrier would,
 * and refuses what a real carrier refuses. Idempotent by reference, as Toy Parcels promises.
 */
export function createToyAdapter(): { adapter: CarrierAdapter; scan(trackingNumber: string, status: ScanStatus): void } {
  const bookings = new Map<string, KnownPurchase>();
  const scans = new Map<string, Scan[]>();
  const carrierCode = toyDefinition.code;

  const adapter: CarrierAdapter = {
    definition: toyDefinition,
    async rate(request) {
      return rateFromCards(toyDefinition, request);
    },
    checkAddress: () => [],
    async buy(request) {
      const existing = bookings.get(request.reference);
      if (existing) return { ...existing, label: null, billed: null };
      const service = toyDefinition.services.find((s) => s.code === request.serviceCode);
      if (!service || !fitsBounds(request.parcel, service.bounds) || service.rate(request.parcel, request.from, request.to) === null) {
        throw new CarrierError('definitive', `Toy Parcels cannot carry this with ${request.serviceCode}`, { carrierCode, status: 422 });
      }
      const purchase: KnownPurchase = {
        reference: request.reference,
        trackingNumber: toyDefinition.trackingNumberFor(randomUUID()),
        serviceCode: service.code,
        cancelled: false,
      };
      bookings.set(request.reference, purchase);
      return { ...purchase, label: null, billed: null };
    },
    async findPurchase(reference) {
      const found = bookings.get(reference);
      return found ? { ...found } : null;
    },
    async cancel({ reference }) {
      const found = bookings.get(reference);
      if (!found) throw new CarrierError('definitive', `no booking ${reference}`, { carrierCode, reason: 'not_found' });
      if ((scans.get(found.trackingNumber) ?? []).length > 0) {
        return { kind: 'refused', reason: 'already_scanned', message: 'Parcel already collected; it can no longer be cancelled.' };
      }
      found.cancelled = true;
      return { kind: 'cancelled' };
    },
    async scans(trackingNumber) {
      return [...(scans.get(trackingNumber) ?? [])];
    },
  };

  function scan(trackingNumber: string, status: ScanStatus): void {
    const list = scans.get(trackingNumber) ?? [];
    const last = list.at(-1);
    const at = Math.max(Date.now(), last ? Date.parse(last.occurredAt) + 1 : 0);
    list.push({ id: `toyscan_${randomUUID()}`, occurredAt: new Date(at).toISOString(), status, carrierCode: null, description: status, location: null });
    scans.set(trackingNumber, list);
  }

  return { adapter, scan };
}
