import { fitsBounds, type Address, type Parcel } from '../../domain/index.js';
import { serviceNet } from '../quote.js';
import { rateFromCards } from '../rate-card-adapter.js';
import { CarrierError, type CarrierAdapter, type CarrierDefinition, type KnownPurchase, type Rate, type RateRequest, type ServiceDefinition } from '../types.js';

/**
 * A carrier priced by its rating API is priced in the sandbox by its services' indicative cards,
 * in the currency of the route (never a carrier call); a rate-card carrier by its own cards.
 */
function sandboxRates(definition: CarrierDefinition, request: RateRequest): Rate[] {
  if (definition.pricing !== 'carrier') return rateFromCards(definition, request);
  const rates: Rate[] = [];
  for (const service of definition.services) {
    if (request.serviceCode !== undefined && service.code !== request.serviceCode) continue;
    const price = sandboxPrice(service, request.parcel, request.from, request.to);
    if (price) rates.push({ serviceCode: service.code, net: price.net, currency: price.currency, estimatedDeliveryDays: service.estimatedDeliveryDays });
  }
  return rates.sort((a, b) => a.net - b.net || (a.serviceCode < b.serviceCode ? -1 : a.serviceCode > b.serviceCode ? 1 : 0));
}

function sandboxPrice(service: ServiceDefinition, parcel: Parcel, from: Address, to: Address) {
  return fitsBounds(parcel, service.bounds) ? (service.sandboxRate?.(parcel, from, to) ?? null) : null;
}

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
      return sandboxRates(definition, request);
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
      const carried =
        definition.pricing === 'carrier'
          ? sandboxPrice(service, request.parcel, request.from, request.to) !== null
          : serviceNet(service, request.parcel, request.from, request.to, request.options) !== null;
      if (!carried) {
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

    async cancel({ reference }) {
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
