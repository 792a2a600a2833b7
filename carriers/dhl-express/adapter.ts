import { crossesBorder, type Address, type ShipmentOptions } from '../../domain/index.js';
import { requiredCredentials } from '../credentials.js';
import { CarrierError, type AddressProblem, type BoughtLabel, type CarrierAdapter, type HttpAdapterOptions, type PurchaseRequest } from '../types.js';
import { createDhlClient, type DhlClient, type DhlClientConfig } from './client.js';
import { dhlExpressDefinition, DHL_EXPRESS_SETTINGS } from './definition.js';
import { requiredSettings } from '../credentials.js';
import { dhlLabelZpl } from './label-zpl.js';
import { dhlAddressProblems, dhlPhoneProblems } from './mapping-address.js';
import { dhlPickupProblems } from './mapping-pickup.js';
import { dhlCustomsProblems } from './mapping-shipment.js';
import { dhlProductCode, dhlRoute, ourDhlServiceCode } from './services.js';


/** Purchases and voids this process remembers, at most (the newest). */
const REMEMBERED = 256;

export function createDhlExpressAdapter(options: HttpAdapterOptions, overrides: Partial<DhlClientConfig> = {}): CarrierAdapter {
  return dhlAdapterOn(createDhlClient({ ...dhlClientConfig(options), ...overrides }));
}

/** The client's settings from the adapter's options; a missing credential fails here, at first use. */
export function dhlClientConfig(options: HttpAdapterOptions): DhlClientConfig {
  const credentials = requiredCredentials(dhlExpressDefinition.code, requiredSettings(DHL_EXPRESS_SETTINGS), options);
  return { url: options.baseUrl, apiKey: credentials.API_KEY, apiSecret: credentials.API_SECRET, accountNumber: credentials.ACCOUNT_NUMBER, timeoutMs: options.timeoutMs };
}

/**
 * DHL Express through MyDHL API (client.ts): prices from rates, labels and invoices from shipments,
 * scans from tracking, pickups booked and cancelled. Two things DHL does not have shape the rest:
 * - no cancel operation: DHL bills only the shipments it scans, so a void is refused once tracking
 *   shows a scan and otherwise is done at once (contract: Carriers), with nothing sent to DHL;
 * - no way to make a label again: a shipment DHL made under our reference but whose answer was lost
 *   is found by its reference (GET /tracking), yet its label cannot be had back. Settling a purchase,
 *   such a shipment is not taken: the purchase buys again, and the first shipment, whose label nobody
 *   holds, is never scanned and so never billed. What this process bought it remembers for a while,
 *   label included, so a retried step gets the same label.
 */
/** The declared value to insure, in the account's currency; undefined when none is asked for. */
function insured(options: ShipmentOptions | undefined, currency: string | undefined): { value: string; currency: string } | undefined {
  return options?.declared_value !== undefined ? { value: options.declared_value, currency: currency ?? 'GBP' } : undefined;
}

export function dhlAdapterOn(client: DhlClient): CarrierAdapter {
  const definition = dhlExpressDefinition;
  const carrierCode = definition.code;
  /** This process's purchases by reference, with their labels (a retried step is answered from here). */
  const bought = new Map<string, BoughtLabel>();
  /** References this process voided: DHL keeps no record of a void, since it has none. */
  const voided = new Set<string>();

  function refuse(message: string): never {
    throw new CarrierError('definitive', message, { carrierCode });
  }

  function checkAddress(from: Address, to: Address): AddressProblem[] {
    return [...dhlAddressProblems(from, 'from'), ...dhlAddressProblems(to, 'to')];
  }

  function purchaseProblems(request: Omit<PurchaseRequest, 'reference'>): AddressProblem[] {
    return [...dhlPhoneProblems(request.from, 'from'), ...dhlPhoneProblems(request.to, 'to'), ...dhlCustomsProblems(request.customs)];
  }

  function remember<T>(into: Map<string, T> | Set<string>, reference: string, value?: T): void {
    into.delete(reference);
    if (into instanceof Map) into.set(reference, value as T);
    else into.add(reference);
    while (into.size > REMEMBERED) into.delete(into.keys().next().value as string);
  }

  async function ship(request: PurchaseRequest): Promise<BoughtLabel> {
    const created = await client.ship({
      reference: request.reference,
      serviceCode: request.serviceCode,
      from: request.from,
      to: request.to,
      parcel: request.parcel,
      at: request.at ? new Date(request.at) : new Date(),
      ...(request.customs ? { customs: request.customs } : {}),
      ...(request.options ? { options: request.options } : {}),
      ...(request.currency ? { currency: request.currency } : {}),
    });
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
  }

  return {
    definition,

    async rate(request) {
      const route = dhlRoute(request.from.country, request.to.country);
      if (request.serviceCode !== undefined && dhlProductCode(request.serviceCode, route) === undefined) return [];
      // Options DHL is not asked for here (a signature, Saturday delivery) leave it out; a declared value is insured.
      if (request.isReturn || request.options?.signature || request.options?.saturday_delivery) return [];
      const insure = insured(request.options, request.currency);
      const problems = checkAddress(request.from, request.to);
      if (problems.length) refuse(problems.map((p) => `${p.path} ${p.message}`).join('; '));
      const rated = await client.rate({ from: request.from, to: request.to, parcel: request.parcel, at: new Date(), ...(request.serviceCode ? { serviceCode: request.serviceCode } : {}), ...(insure ? { insure } : {}) });
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
      const known = bought.get(request.reference);
      if (known && known.serviceCode !== request.serviceCode) refuse(`reference ${request.reference} was already used for ${known.serviceCode}`);
      const problems = [...checkAddress(request.from, request.to), ...purchaseProblems(request)];
      if (problems.length) refuse(problems.map((p) => `${p.path} ${p.message}`).join('; '));
      if (known) return known;
      const label = await ship(request);
      remember(bought, request.reference, label);
      return label;
    },

    async findPurchase(reference, lookup = {}) {
      const known = bought.get(reference);
      const stored = lookup.stored;
      if (stored) {
        const serviceCode = known?.trackingNumber === stored.trackingNumber ? known.serviceCode : null;
        return { reference, trackingNumber: stored.trackingNumber, serviceCode, cancelled: voided.has(reference) };
      }
      const found = await client.findByReference(reference);
      const mine = known && found.find((f) => f.trackingNumber === known.trackingNumber);
      // A purchase this process made (its label went to the database when it was bought).
      if (known && mine) return { reference, trackingNumber: known.trackingNumber, serviceCode: known.serviceCode, cancelled: voided.has(reference) };
      const first = found[0];
      // Settling a purchase: a shipment without its label is no purchase to hand over (see above).
      if (!first || lookup.request) return null;
      const route = first.originCountry && first.destinationCountry ? dhlRoute(first.originCountry, first.destinationCountry) : undefined;
      const serviceCode = route && first.productCode ? (ourDhlServiceCode(first.productCode, route) ?? null) : null;
      return { reference, trackingNumber: first.trackingNumber, serviceCode, cancelled: voided.has(reference) };
    },

    async cancel(purchase) {
      const scans = await client.track(purchase.trackingNumber);
      if (scans.length > 0) {
        const last = scans[scans.length - 1];
        const message = `DHL Express has scanned ${purchase.trackingNumber} (${last.description || last.carrierCode}): it can no longer be voided`;
        return { kind: 'refused', reason: 'already_scanned', message, ...(last.carrierCode ? { carrierErrorCode: last.carrierCode } : {}) };
      }
      // Never scanned, never billed: the label is void without a call to DHL, which has none.
      remember(voided, purchase.reference);
      return { kind: 'cancelled' };
    },

    async recoverLabel(purchase, format) {
      if (format !== 'zpl') refuse(`DHL Express makes no ${format} labels`);
      const known = bought.get(purchase.reference);
      if (!known?.label || known.trackingNumber !== purchase.trackingNumber) refuse('DHL Express cannot make a label again; its ZPL is made from the label as it is bought');
      return dhlLabelZpl(known.label);
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
