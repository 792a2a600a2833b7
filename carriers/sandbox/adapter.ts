import { serviceNet } from '../quote.js';
import { rateFromCards } from '../rate-card-adapter.js';
import { CarrierError, type CarrierAdapter, type CarrierDefinition, type KnownPurchase } from '../types.js';

/**
 * A carrier that lives in this process: sandbox keys use it, so they get the carrier's real
 * tracking-number format without touching its network or spending money. Tracking numbers derive
 * from the reference, so a retried purchase (or a restarted worker) gives the same number.
 */
export function createSandboxAdapter(definition: CarrierDefinition): CarrierAdapter {
  const purchases = new Map<string, KnownPurchase>();
  const carrierCode = definition.code;

  return {
    definition,

    async rate(request) {
      return rateFromCards(definition, request);
    },

    // The sandbox takes whatever our API accepts: nothing leaves the process.
    checkAddress: () => [],

    async buy(request) {
      const existing = purchases.get(request.reference);
      if (existing) {
        if (existing.serviceCode !== request.serviceCode) {
          throw new CarrierError('definitive', `reference ${request.reference} was already used for ${existing.serviceCode}`, {
            carrierCode,
          });
        }
        return { ...existing, label: null, billed: null };
      }
      const service = definition.services.find((s) => s.code === request.serviceCode);
      if (!service) {
        throw new CarrierError('definitive', `${definition.name} has no service ${request.serviceCode}`, { carrierCode });
      }
      // Refuse what the real carrier would refuse, so sandbox integrations meet the same errors.
      if (serviceNet(service, request.parcel, request.from, request.to) === null) {
        throw new CarrierError('definitive', `${service.name} does not carry this parcel on this route`, { carrierCode });
      }
      const purchase: KnownPurchase = {
        reference: request.reference,
        trackingNumber: definition.trackingNumberFor(request.reference),
        serviceCode: service.code,
        cancelled: false,
      };
      purchases.set(request.reference, purchase);
      // The platform draws sandbox labels and charges its own price: no carrier document, no bill.
      return { ...purchase, label: null, billed: null };
    },

    async findPurchase(reference) {
      const purchase = purchases.get(reference);
      return purchase ? { ...purchase } : null;
    },

    async cancel(reference) {
      // The map is per process: with several workers (or after a restart) the purchase may have been
      // made elsewhere. In sandbox mode the platform's own records are the truth, so accept it.
      const purchase = purchases.get(reference);
      if (purchase) purchase.cancelled = true;
      return { kind: 'cancelled' };
    },

    // Sandbox scans are recorded by the platform itself (POST /sandbox/shipments/{id}/scans) and
    // never come from a carrier, so the adapter has none to report.
    async scans() {
      return [];
    },
  };
}
