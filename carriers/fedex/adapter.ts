import { CARRIER_REASON, parseAmount, SCAN_STATUSES, type Address, type ScanStatus } from '../../domain/index.js';
import { requiredCredentials } from '../credentials.js';
import { CarrierError, type AddressProblem, type BoughtLabel, type CarrierAdapter, type CancelOutcome, type HttpAdapterOptions, type PurchaseRequest, type Scan } from '../types.js';
import { createFedexClient, type FedexClient, type FedexClientConfig } from './client.js';
import { fedexDefinition, FEDEX_SETTINGS } from './definition.js';
import { requiredSettings } from '../credentials.js';
import { fedexLabelZpl } from './label-zpl.js';
import { FEDEX_LIMITS } from './limits.js';
import { fedexAddressProblems, fedexContactProblems, fedexParcelProblems } from './mapping-address.js';
import { fedexCustomsProblems } from './mapping-international.js';
import { fedexPickupProblems } from './mapping-pickup.js';
import type { FedexFoundPackage, FedexScan } from './mapping-tracking.js';
import { fedexServiceServes, fedexServiceType, ourFedexServiceCode } from './services.js';

/** Labels this process bought, kept for a retried buy and their ZPL (below); the oldest go first. */
const KEPT_LABELS = 500;

export function createFedexAdapter(options: HttpAdapterOptions, overrides: Partial<FedexClientConfig> = {}): CarrierAdapter {
  return fedexAdapterOn(createFedexClient({ ...fedexClientConfig(options), ...overrides }));
}

/** The client's settings from the adapter's options; a missing credential fails here, at first use. */
export function fedexClientConfig(options: HttpAdapterOptions): FedexClientConfig {
  const credentials = requiredCredentials(fedexDefinition.code, requiredSettings(FEDEX_SETTINGS), options) as Record<'CLIENT_ID' | 'CLIENT_SECRET' | 'ACCOUNT_NUMBER', string>;
  return { url: options.baseUrl, clientId: credentials.CLIENT_ID, clientSecret: credentials.CLIENT_SECRET, accountNumber: credentials.ACCOUNT_NUMBER, timeoutMs: options.timeoutMs };
}

const isScanStatus = (status: string): status is ScanStatus => (SCAN_STATUSES as readonly string[]).includes(status);
/** Whether FedEx has handled the parcel: any scan but the label's creation and its cancellation. */
const handled = (scans: readonly FedexScan[]) => scans.some((s) => isScanStatus(s.status));

/**
 * FedEx through its published APIs (client.ts): prices from Rates and Transit Times, labels from
 * Ship, cancels, scans from Basic Integrated Visibility mapped to ours beside FedEx's event type,
 * and pickups. The client holds the credentials and the OAuth token; this adapter never shows them.
 *
 * FedEx makes a label once, in the one format asked for, and has no reprint: the label is bought as a
 * PNG (from which the PDFs are made) and its ZPL is that image for thermal printers, made when the
 * purchase asks for it (`recoverLabel`, right after the buy in the same activity). For the same
 * reason a label whose answer was lost cannot be had again: it is cancelled (nothing is scanned
 * yet, and FedEx charges nothing for it) and bought anew.
 */
export function fedexAdapterOn(client: FedexClient): CarrierAdapter {
  const definition = fedexDefinition;
  const carrierCode = definition.code;
  /** What this process bought under a reference: a retried buy answers it again, and its ZPL is made from its image. */
  const bought = new Map<string, BoughtLabel>();

  function refuse(message: string): never {
    throw new CarrierError('definitive', message, { carrierCode });
  }

  function checkAddress(from: Address, to: Address): AddressProblem[] {
    return [...fedexAddressProblems(from, 'from'), ...fedexAddressProblems(to, 'to')];
  }

  function purchaseProblems(request: Omit<PurchaseRequest, 'reference'>): AddressProblem[] {
    const problems = [...fedexContactProblems(request.from, 'from'), ...fedexContactProblems(request.to, 'to')];
    const declared = request.options?.declared_value;
    if (declared !== undefined && (parseAmount(declared) ?? 0) > FEDEX_LIMITS.maxDeclaredMinor) {
      problems.push({ path: 'options.declared_value', message: 'must be at most 99999.99 for FedEx' });
    }
    if (request.customs) problems.push(...fedexCustomsProblems(request.customs));
    return problems;
  }

  /** Refuses, before any call, what FedEx would refuse or cut: never truncated silently. */
  function refuseProblems(problems: AddressProblem[]): void {
    if (problems.length) refuse(problems.map((p) => `${p.path} ${p.message}`).join('; '));
  }

  /** Cancels what FedEx shipped under our reference and has not cancelled: labels whose answers were lost. */
  async function cancelStrays(reference: string, live: readonly FedexFoundPackage[]): Promise<void> {
    for (const pkg of live) {
      const outcome = await client.cancel(pkg.trackingNumber);
      if (!outcome.cancelled) refuse(`FedEx would not cancel ${pkg.trackingNumber}, bought under ${reference} with its answer lost: ${outcome.message}`);
    }
  }

  /** A refusal to cancel, told apart by tracking: FedEx cancels only what it has not been tendered. */
  async function refusal(trackingNumber: string, message: string, carrierErrorCode?: string): Promise<CancelOutcome> {
    const scans = await client.track(trackingNumber);
    if (scans.some((s) => s.status === 'cancelled')) return { kind: 'cancelled' };
    const reason = handled(scans) ? 'already_scanned' : 'not_cancellable';
    return { kind: 'refused', reason, message, ...(carrierErrorCode ? { carrierErrorCode } : {}) };
  }

  return {
    definition,

    async rate(request) {
      if (request.serviceCode !== undefined && (fedexServiceType(request.serviceCode) === undefined || !fedexServiceServes(request.serviceCode, request.from, request.to))) return [];
      const declared = request.options?.declared_value;
      if (declared !== undefined && (parseAmount(declared) ?? 0) > FEDEX_LIMITS.maxDeclaredMinor) return [];
      refuseProblems([...checkAddress(request.from, request.to), ...fedexParcelProblems(request.parcel, request.from, request.to)]);
      const rated = await client.rate({
        from: request.from,
        to: request.to,
        parcel: request.parcel,
        service: request.serviceCode ?? 'all',
        ...(request.options ? { options: request.options } : {}),
        ...(request.currency ? { currency: request.currency } : {}),
        ...(request.isReturn ? { isReturn: true } : {}),
      });
      return rated
        .filter((r) => (request.serviceCode === undefined || r.serviceCode === request.serviceCode) && fedexServiceServes(r.serviceCode, request.from, request.to))
        .map((r) => ({ serviceCode: r.serviceCode, net: r.net, currency: r.currency, estimatedDeliveryDays: r.estimatedDeliveryDays }));
    },

    checkAddress,
    purchaseProblems,

    async buy(request) {
      if (fedexServiceType(request.serviceCode) === undefined) refuse(`FedEx has no service ${request.serviceCode}`);
      if (!fedexServiceServes(request.serviceCode, request.from, request.to)) refuse(`FedEx does not carry ${request.serviceCode} from ${request.from.country} to ${request.to.country}`);
      refuseProblems([...checkAddress(request.from, request.to), ...fedexParcelProblems(request.parcel, request.from, request.to), ...purchaseProblems(request)]);
      // A retried step: the label this process bought is answered again while FedEx keeps it; any
      // other under our reference was bought with its answer lost, and FedEx cannot send it again.
      const known = bought.get(request.reference);
      if (request.earlierAttempt || known) {
        const live = (await client.find(request.reference, request.at)).filter((p) => !p.cancelled);
        if (known && live.some((p) => p.trackingNumber === known.trackingNumber) && known.serviceCode === request.serviceCode) return known;
        await cancelStrays(request.reference, live);
      }
      const { reference, earlierAttempt: _earlier, earlierAttemptAt: _earlierAt, ...rest } = request;
      const label = await client.ship({ ...rest, reference });
      const answer: BoughtLabel = {
        reference,
        trackingNumber: label.trackingNumber,
        serviceCode: request.serviceCode,
        cancelled: false,
        label: label.label,
        billed: label.billed,
        carrierShipmentId: label.carrierShipmentId,
        ...(label.documents ? { documents: label.documents } : {}),
      };
      bought.set(reference, answer);
      if (bought.size > KEPT_LABELS) bought.delete(bought.keys().next().value as string);
      return answer;
    },

    async findPurchase(reference, lookup = {}) {
      const known = bought.get(reference);
      const stored = lookup.stored;
      if (stored) {
        const scans = await client.track(stored.trackingNumber);
        const serviceCode = known?.trackingNumber === stored.trackingNumber ? known.serviceCode : null;
        return { reference, trackingNumber: stored.trackingNumber, serviceCode, cancelled: scans.some((s) => s.status === 'cancelled'), carrierShipmentId: stored.carrierShipmentId };
      }
      const found = await client.find(reference, lookup.request?.at);
      const live = found.filter((p) => !p.cancelled);
      const pkg = live[0] ?? found[0];
      if (!pkg) return null;
      // Our own label's service where this process bought it, else the one FedEx's tracking names.
      const serviceCode = known?.trackingNumber === pkg.trackingNumber ? known.serviceCode : (pkg.serviceType && ourFedexServiceCode(pkg.serviceType)) || null;
      if (lookup.request && live.length) {
        // A lost buy answer, settled before buying again: that label cannot be had, so it is cancelled.
        await cancelStrays(reference, live);
        return { reference, trackingNumber: pkg.trackingNumber, serviceCode, cancelled: true };
      }
      return { reference, trackingNumber: pkg.trackingNumber, serviceCode, cancelled: pkg.cancelled };
    },

    async cancel(purchase) {
      const trackingNumber = purchase.carrierShipmentId ?? purchase.trackingNumber;
      try {
        const outcome = await client.cancel(trackingNumber);
        return outcome.cancelled ? { kind: 'cancelled' } : await refusal(purchase.trackingNumber, outcome.message || 'FedEx did not cancel the shipment');
      } catch (error) {
        // FedEx documents no code for a shipment already tendered: a refusal is told apart by tracking.
        if (!(error instanceof CarrierError) || error.kind !== 'definitive' || error.details.reason !== undefined) throw error;
        const status = error.details.status;
        if (status === undefined || status === 401 || status === 403) throw error;
        return refusal(purchase.trackingNumber, error.message, error.details.carrierErrorCode);
      }
    },

    async recoverLabel(purchase, format) {
      if (format !== 'zpl') refuse(`FedEx makes a label once; its ${format} cannot be had again`);
      const label = bought.get(purchase.reference)?.label;
      const image = label && label.format !== 'zpl' ? label.contentBase64 : undefined;
      if (!image) refuse(`FedEx offers no reprint, and the label image of ${purchase.reference} is not in this process`);
      return { format: 'zpl', contentBase64: Buffer.from(await fedexLabelZpl(image)).toString('base64') };
    },

    async scans(trackingNumber) {
      const scans = await client.track(trackingNumber);
      // Label created and cancelled are not movements of the parcel: our scans are the ones that are.
      return scans.filter((s) => isScanStatus(s.status)).map((s): Scan => ({ ...s, status: s.status as ScanStatus }));
    },

    // Up to 30 numbers a call (capabilities.trackingBatch): the polls a worker runs at once go together.
    async scansBatch(trackingNumbers) {
      const answers = await client.trackMany(trackingNumbers);
      const results = new Map<string, Scan[] | CarrierError>();
      for (const [number, scans] of answers) {
        results.set(
          number,
          scans === null
            ? new CarrierError('definitive', `FedEx does not know tracking number ${number}`, { carrierCode: 'fedex', reason: CARRIER_REASON.notFound })
            : scans.filter((s) => isScanStatus(s.status)).map((s): Scan => ({ ...s, status: s.status as ScanStatus })),
        );
      }
      return results;
    },

    async schedulePickup(request) {
      const problems = fedexPickupProblems({ address: request.address, window: request.window, ...(request.instructions ? { instructions: request.instructions } : {}), ...(request.phone ? { phone: request.phone } : {}) });
      if (problems.length) refuse(problems.join('; '));
      const confirmation = await client.schedulePickup({
        reference: request.reference,
        address: request.address,
        window: request.window,
        count: request.parcels.count,
        totalWeightG: request.parcels.totalWeightG,
        serviceCodes: request.parcels.serviceCodes,
        destinationCountries: request.parcels.destinationCountries ?? [],
        ...(request.instructions ? { instructions: request.instructions } : {}),
        ...(request.phone ? { phone: request.phone } : {}),
      });
      // The Pickup API states no fee: FedEx bills on-call pickups to the account, not per booking here.
      return { confirmation, fee: null };
    },

    async cancelPickup(confirmation) {
      await client.cancelPickup(confirmation);
    },
  };
}
