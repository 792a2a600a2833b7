import { CARRIER_REASON, SCAN_STATUSES, type ScanStatus } from '../../domain/index.js';
import { CarrierError, type CancelOutcome, type CarrierAdapter, type HttpAdapterOptions, type PurchaseRequest, type Scan } from '../types.js';
import { uspsAddressProblems } from './mapping-address.js';
import { localDate, usTimeZone } from '../local-time.js';
import { requiredCredentials, requiredSettings } from '../credentials.js';
import { createUspsClient, type UspsClient, type UspsClientConfig, type UspsPurchase } from './client.js';
import { uspsDefinition, USPS_SETTINGS } from './definition.js';
import { uspsServiceByCode } from './services.js';
import { uspsIntlProblems, uspsIntlServiceByCode } from './mapping-international.js';

const sells = (code: string) => uspsServiceByCode(code) !== undefined || uspsIntlServiceByCode(code) !== undefined;

/** What this process bought, only to name the service of a purchase found later (USPS's lookups do not). */
interface Bought {
  trackingNumber: string;
  serviceCode: string;
}

/** A purchase request as the client sends it: its mailing date derived from the request's fixed instant. */
function uspsPurchase(request: PurchaseRequest): UspsPurchase {
  return {
    shipmentId: request.reference,
    serviceCode: request.serviceCode,
    from: request.from,
    to: request.to,
    parcel: request.parcel,
    ...(request.at ? { at: request.at } : {}),
    ...(request.customs ? { customs: request.customs } : {}),
    ...(request.options && Object.keys(request.options).length ? { options: request.options } : {}),
    ...(request.isReturn ? { isReturn: true } : {}),
  };
}

/**
 * USPS through its v3 APIs (client.ts): Domestic Prices, Labels (with the payment authorization the
 * client keeps), cancels that become refund requests once a label is manifested, and Tracking v3.
 * The client holds the credentials and both tokens; this adapter never shows them.
 */
export function createUspsAdapter(options: HttpAdapterOptions, overrides: Partial<UspsClientConfig> = {}): CarrierAdapter {
  // The deployment's pickup contact (CARRIER_USPS_PICKUP_EMAIL) for accounts without a user of their own.
  return uspsAdapterOn(createUspsClient({ ...uspsClientConfig(options), ...overrides }), { pickupEmail: options.credentials?.PICKUP_EMAIL });
}

/** The client's settings from the adapter's options; a missing credential fails here, at first use. */
export function uspsClientConfig(options: HttpAdapterOptions): UspsClientConfig {
  const c = requiredCredentials(uspsDefinition.code, requiredSettings(USPS_SETTINGS), options);
  return {
    url: options.baseUrl,
    clientId: c.CLIENT_ID,
    clientSecret: c.CLIENT_SECRET,
    crid: c.CRID,
    mid: c.MID,
    manifestMid: c.MANIFEST_MID,
    accountNumber: c.ACCOUNT_NUMBER,
    // The label as an image: our pdf_6x4 and pdf_a4 are the carrier's 4 × 6 image on a page of ours
    // (contract: Carriers), and its ZPL is a reprint (recoverLabel), as no purchase gives both.
    labelFormat: 'png',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...callsPerHour(options.credentials?.CALLS_PER_HOUR),
  };
}

/** CARRIER_USPS_CALLS_PER_HOUR, when it is a whole number of calls; USPS's default quota otherwise. */
function callsPerHour(value: string | undefined): { callsPerHour?: number } {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n > 0 ? { callsPerHour: n } : {};
}

export function uspsAdapterOn(client: UspsClient, settings: { pickupEmail?: string } = {}): CarrierAdapter {
  const definition = uspsDefinition;
  const carrierCode = definition.code;
  const bought = new Map<string, Bought>();
  /** Labels this process cancelled, by tracking number: a repeated cancel answers as the first did. */
  const cancelledHere = new Map<string, CancelOutcome>();

  function refuse(message: string): never {
    throw new CarrierError('definitive', message, { carrierCode });
  }

  return {
    definition,

    async rate(request) {
      if (request.serviceCode !== undefined && !sells(request.serviceCode)) return [];
      const terms = { ...(request.options ? { options: request.options } : {}), ...(request.isReturn ? { isReturn: true } : {}) };
      const rated = await client.rate(request.from, request.to, request.parcel, request.serviceCode ?? 'all', terms);
      return rated
        .filter((r) => request.serviceCode === undefined || r.serviceCode === request.serviceCode)
        .map((r) => ({ serviceCode: r.serviceCode, net: r.net, currency: r.currency, estimatedDeliveryDays: r.estimatedDeliveryDays }));
    },

    // Abroad, the recipient's address is checked against the international label's limits instead.
    checkAddress: (from, to) =>
      to.country.trim().toUpperCase() === 'US' || from.country.trim().toUpperCase() !== 'US'
        ? [...uspsAddressProblems(from, 'from'), ...uspsAddressProblems(to, 'to')]
        : uspsIntlProblems(from, to, undefined).filter((p) => p.path !== 'customs'),
    // The carrier's own limits on a declaration, before anything is bought (a form it would refuse).
    purchaseProblems: ({ from, to, customs }) =>
      to.country.trim().toUpperCase() === 'US' || !customs ? [] : uspsIntlProblems(from, to, customs).filter((p) => p.path.startsWith('customs')),

    async buy(request) {
      if (!sells(request.serviceCode)) refuse(`USPS has no service ${request.serviceCode}`);
      if ((uspsIntlServiceByCode(request.serviceCode) !== undefined) !== (request.to.country.trim().toUpperCase() !== 'US')) {
        refuse(`${request.serviceCode} does not carry parcels from ${request.from.country} to ${request.to.country}`);
      }
      const known = bought.get(request.reference);
      if (known && known.serviceCode !== request.serviceCode) refuse(`reference ${request.reference} was already used for ${known.serviceCode}`);
      // The idempotency key is our reference, so a repeated buy answers the label bought first.
      const label = await client.buy(uspsPurchase(request));
      bought.set(request.reference, { trackingNumber: label.trackingNumber, serviceCode: request.serviceCode });
      return {
        reference: request.reference,
        trackingNumber: label.trackingNumber,
        serviceCode: request.serviceCode,
        cancelled: false,
        label: label.label,
        billed: label.billed,
        carrierShipmentId: null,
      };
    },

    async findPurchase(reference, lookup = {}) {
      if (lookup.stored) {
        // A label we stored exists; USPS tells a cancellation only to the cancel itself (below).
        const done = cancelledHere.get(lookup.stored.trackingNumber);
        return { reference, trackingNumber: lookup.stored.trackingNumber, serviceCode: bought.get(reference)?.serviceCode ?? null, cancelled: done !== undefined };
      }
      if (lookup.request) {
        // The document's settlement of a lost answer: the same request under the same key answers
        // the label made first, without a second label or a second charge (or makes the one asked for).
        const label = await client.buy(uspsPurchase(lookup.request));
        bought.set(reference, { trackingNumber: label.trackingNumber, serviceCode: lookup.request.serviceCode });
        return { reference, trackingNumber: label.trackingNumber, serviceCode: lookup.request.serviceCode, cancelled: false, label: label.label, billed: label.billed, carrierShipmentId: null };
      }
      if (lookup.stray) {
        // Every call spends the small quota, and a reprint (three a label, none once cancelled) would
        // spend a label's too: the early looks ask nothing; the last cancels by the purchase's key.
        if (!lookup.stray.final) return null;
        const cancelled = await client.cancelByShipment(reference).catch((error: unknown) => {
          if (error instanceof CarrierError && error.details.reason === CARRIER_REASON.notFound) return null;
          throw error;
        });
        if (!cancelled) return null;
        return { reference, trackingNumber: cancelled.trackingNumber ?? '', serviceCode: null, cancelled: cancelled.kind !== 'refused' };
      }
      // Neither the label nor its request: a reprint by the key is USPS's only read (three a label).
      const reprinted = await client.reprintByKey(reference, 'png');
      if (!reprinted) return null;
      const known = bought.get(reference);
      return { reference, trackingNumber: reprinted.trackingNumber, serviceCode: known?.trackingNumber === reprinted.trackingNumber ? known.serviceCode : null, cancelled: cancelledHere.has(reprinted.trackingNumber) };
    },

    async cancel(purchase) {
      const done = cancelledHere.get(purchase.trackingNumber);
      // Cancelled or a refund requested already: asking again would only be refused.
      if (done) return done;
      let outcome: CancelOutcome;
      try {
        outcome = await client.cancel(purchase.trackingNumber);
      } catch (error) {
        // USPS answers a label it cancelled as not found; this one we bought and stored, so it was.
        if (error instanceof CarrierError && error.details.reason === CARRIER_REASON.notFound) return { kind: 'cancelled' };
        throw error;
      }
      if (outcome.kind !== 'refused') cancelledHere.set(purchase.trackingNumber, outcome);
      return outcome;
    },

    async recoverLabel(purchase, format) {
      // A reprint by its tracking number, in another image type; USPS allows three per label.
      const reprinted = await client.reprint(purchase.trackingNumber, format);
      return reprinted.label;
    },

    async scans(trackingNumber) {
      const scans = await client.track(trackingNumber);
      // Pre-shipment and cancellation events are not movements of the parcel: our scans are the ones that are.
      return scans.filter((s) => isScanStatus(s.status)).map((s): Scan => ({ ...s, status: s.status as ScanStatus }));
    },

    async createScanForm(request) {
      const form = await client.scanForm(request.from, request.labels.map((l) => l.trackingNumber));
      return { carrierFormId: form.manifestNumber, document: { format: 'pdf', contentBase64: form.pdfBase64 } };
    },

    async schedulePickup(request) {
      // USPS needs a way to reach the shipper about the pickup: an e-mail of the account's, else the deployment's.
      const contactEmail = request.contactEmail || settings.pickupEmail;
      if (!contactEmail) refuse('USPS needs an e-mail address of the account to book a pickup');
      if (contactEmail.length > 50) refuse('the account\'s e-mail is longer than the 50 characters USPS takes for a pickup contact');
      const problems = uspsAddressProblems(request.address, 'address');
      if (problems.length) refuse(problems.map((p) => `${p.path} ${p.message}`).join('; '));
      const confirmation = await client.schedulePickup({
        address: request.address,
        // The pickup location's own date: USPS books days, and its day is not UTC's.
        pickupDate: localDate(request.window.start, usTimeZone(request.address)),
        count: request.parcels.count,
        totalWeightG: request.parcels.totalWeightG,
        serviceCodes: request.parcels.serviceCodes,
        contactEmail,
        ...(request.instructions ? { instructions: request.instructions } : {}),
      });
      // USPS collects for free.
      return { confirmation, fee: null };
    },

    async cancelPickup(confirmation) {
      await client.cancelPickup(confirmation);
    },

    verifyAddress: (address) => client.verifyAddress(address),
  };
}

function isScanStatus(status: string): status is ScanStatus {
  return (SCAN_STATUSES as readonly string[]).includes(status);
}
