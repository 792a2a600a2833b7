import { crossesBorder, type Address } from '../../domain/index.js';
import { requiredCredentials } from '../credentials.js';
import { CarrierError, type AddressProblem, type CarrierAdapter, type HttpAdapterOptions, type LabelDocument, type PurchaseRequest } from '../types.js';
import { createDhlClient, type DhlClient, type DhlClientConfig } from './client.js';
import { dhlExpressDefinition } from './definition.js';
import { dhlLabelZpl } from './label-zpl.js';
import { dhlAddressProblems, dhlPhoneProblems } from './mapping-address.js';
import { dhlPickupProblems } from './mapping-pickup.js';
import { dhlCustomsProblems } from './mapping-shipment.js';
import { dhlProductCode, dhlRoute } from './services.js';

/** The settings the DHL Express adapter needs beside its URL (CARRIER_DHL_EXPRESS_<suffix>). */
export const DHL_EXPRESS_CREDENTIALS = ['API_KEY', 'API_SECRET', 'ACCOUNT_NUMBER'] as const;

/** Labels bought by this process and not yet asked for as ZPL: at most this many are kept. */
const LABELS_KEPT = 64;

export function createDhlExpressAdapter(options: HttpAdapterOptions, overrides: Partial<DhlClientConfig> = {}): CarrierAdapter {
  return dhlAdapterOn(createDhlClient({ ...dhlClientConfig(options), ...overrides }));
}

/** The client's settings from the adapter's options; a missing credential fails here, at first use. */
export function dhlClientConfig(options: HttpAdapterOptions): DhlClientConfig {
  const credentials = requiredCredentials('dhl_express', DHL_EXPRESS_CREDENTIALS, options);
  return { url: options.baseUrl, apiKey: credentials.API_KEY, apiSecret: credentials.API_SECRET, accountNumber: credentials.ACCOUNT_NUMBER, timeoutMs: options.timeoutMs };
}

/**
 * DHL Express through MyDHL API (client.ts): prices from rates, labels and invoices from shipments,
 * scans from tracking, pickups booked and cancelled. Two things DHL does not have shape the rest:
 * - no cancel operation: DHL bills only the shipments it scans, so a void is refused once tracking
 *   shows a scan and otherwise is done at once (contract: Carriers), with nothing sent to DHL;
 * - no way to find a label again: a purchase whose answer was lost cannot be had back with its
 *   label, so it is bought again (only the label handed out can ever be scanned and billed), and no
 *   lookup by our reference settles it.
 */
export function dhlAdapterOn(client: DhlClient): CarrierAdapter {
  const definition = dhlExpressDefinition;
  const carrierCode = definition.code;
  /** This process's labels, by reference, until their ZPL is made (the buy's own activity asks at once). */
  const labels = new Map<string, LabelDocument>();

  function refuse(message: string): never {
    throw new CarrierError('definitive', message, { carrierCode });
  }

  function checkAddress(from: Address, to: Address): AddressProblem[] {
    return [...dhlAddressProblems(from, 'from'), ...dhlAddressProblems(to, 'to')];
  }

  function purchaseProblems(request: Omit<PurchaseRequest, 'reference'>): AddressProblem[] {
    return [...dhlPhoneProblems(request.from, 'from'), ...dhlPhoneProblems(request.to, 'to'), ...dhlCustomsProblems(request.customs)];
  }

  function keep(reference: string, label: LabelDocument): void {
    labels.delete(reference);
    labels.set(reference, label);
    while (labels.size > LABELS_KEPT) labels.delete(labels.keys().next().value as string);
  }

  return {
    definition,

    async rate(request) {
      const route = dhlRoute(request.from.country, request.to.country);
      if (request.serviceCode !== undefined && dhlProductCode(request.serviceCode, route) === undefined) return [];
      // Options DHL is not asked for here (signature, Saturday delivery, declared value) leave it out.
      if (request.isReturn || request.options?.signature || request.options?.saturday_delivery || request.options?.declared_value !== undefined) return [];
      const problems = checkAddress(request.from, request.to);
      if (problems.length) refuse(problems.map((p) => `${p.path} ${p.message}`).join('; '));
      const rated = await client.rate({ from: request.from, to: request.to, parcel: request.parcel, at: new Date(), ...(request.serviceCode ? { serviceCode: request.serviceCode } : {}) });
      return rated
        .filter((r) => request.serviceCode === undefined || r.serviceCode === request.serviceCode)
        .map((r) => ({ serviceCode: r.serviceCode, net: r.net, currency: r.currency, estimatedDeliveryDays: r.estimatedDeliveryDays }));
    },

    checkAddress,
    purchaseProblems,

    async buy(request) {
      const route = dhlRoute(request.from.country, request.to.country);
      if (dhlProductCode(request.serviceCode, route) === undefined) refuse(`DHL Express has no ${request.serviceCode} from ${request.from.country} to ${request.to.country}`);
      if (request.isReturn) refuse('DHL Express return labels are not offered here');
      if (crossesBorder(request.from, request.to) && !request.customs) refuse('a DHL Express shipment across a border needs its customs declaration');
      const problems = [...checkAddress(request.from, request.to), ...purchaseProblems(request)];
      if (problems.length) refuse(problems.map((p) => `${p.path} ${p.message}`).join('; '));
      // A retried purchase (`earlierAttempt`) is bought again: see above.
      const created = await client.ship({
        reference: request.reference,
        serviceCode: request.serviceCode,
        from: request.from,
        to: request.to,
        parcel: request.parcel,
        at: request.at ? new Date(request.at) : new Date(),
        ...(request.customs ? { customs: request.customs } : {}),
      });
      keep(request.reference, created.label);
      return {
        reference: request.reference,
        trackingNumber: created.trackingNumber,
        serviceCode: request.serviceCode,
        cancelled: false,
        label: created.label,
        billed: created.billed,
        carrierShipmentId: null,
        ...(created.invoice ? { documents: [{ type: 'commercial_invoice' as const, format: 'pdf' as const, contentBase64: created.invoice }] } : {}),
      };
    },

    async findPurchase(reference, lookup = {}) {
      // A stored purchase stands as bought: DHL keeps no cancellation to find (a void is ours alone).
      if (lookup.stored) return { reference, trackingNumber: lookup.stored.trackingNumber, serviceCode: null, cancelled: false };
      // Nothing stored: a lost answer, bought again rather than found (no label could be had back).
      return null;
    },

    async cancel(purchase) {
      const scans = await client.track(purchase.trackingNumber);
      if (scans.length > 0) {
        const last = scans[scans.length - 1];
        return { kind: 'refused', reason: 'already_scanned', message: `DHL Express has scanned ${purchase.trackingNumber} (${last.description || last.carrierCode})`, ...(last.carrierCode ? { carrierErrorCode: last.carrierCode } : {}) };
      }
      // Never scanned, never billed: the label is void without a call to DHL, which has none.
      return { kind: 'cancelled' };
    },

    async recoverLabel(purchase, format) {
      if (format !== 'zpl') refuse(`DHL Express makes no ${format} labels`);
      const label = labels.get(purchase.reference);
      if (!label) refuse('DHL Express cannot make a label again; its ZPL is made when the label is bought');
      labels.delete(purchase.reference);
      return dhlLabelZpl(label);
    },

    scans: (trackingNumber) => client.track(trackingNumber),

    async schedulePickup(request) {
      const problems = dhlPickupProblems(request);
      if (problems.length) refuse(problems.map((p) => `${p.path} ${p.message}`).join('; '));
      const booked = await client.schedulePickup(request);
      // DHL's booking answer states no fee: a pickup costs what the shipments' prices include.
      return { confirmation: booked.confirmation, fee: null };
    },

    cancelPickup: (confirmation) => client.cancelPickup(confirmation),
  };
}
