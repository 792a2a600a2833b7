import { CARRIER_REASON, SCAN_STATUSES, type ScanStatus } from '../../domain/index.js';
import { CarrierError, type CancelOutcome, type CarrierAdapter, type HttpAdapterOptions, type Scan } from '../types.js';
import { uspsAddressProblems } from './address.js';
import { requiredCredentials } from '../credentials.js';
import { createUspsClient, type UspsClient, type UspsClientConfig } from './client.js';
import { uspsDefinition } from './definition.js';
import { uspsServiceByCode } from './services.js';

/** The settings the USPS adapter needs beside its URL (CARRIER_USPS_<suffix>). */
export const USPS_CREDENTIALS = ['CLIENT_ID', 'CLIENT_SECRET', 'CRID', 'MID', 'MANIFEST_MID', 'ACCOUNT_NUMBER'] as const;

/** The Labels API's refusal to reprint a label that was cancelled. */
const CANCELLED_LABEL = /cancel+ed labels? (?:are|is) not eligible/i;

/** What this process bought and cancelled: USPS's lookups name neither the service nor a cancellation. */
interface Bought {
  trackingNumber: string;
  serviceCode: string;
  cancelled?: CancelOutcome;
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
  const c = requiredCredentials('usps', USPS_CREDENTIALS, options);
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
  };
}

export function uspsAdapterOn(client: UspsClient, settings: { pickupEmail?: string } = {}): CarrierAdapter {
  const definition = uspsDefinition;
  const carrierCode = definition.code;
  const bought = new Map<string, Bought>();

  function refuse(message: string): never {
    throw new CarrierError('definitive', message, { carrierCode });
  }

  return {
    definition,

    async rate(request) {
      if (request.serviceCode !== undefined && !uspsServiceByCode(request.serviceCode)) return [];
      const rated = await client.rate(request.from, request.to, request.parcel, request.serviceCode ?? 'all');
      return rated
        .filter((r) => request.serviceCode === undefined || r.serviceCode === request.serviceCode)
        .map((r) => ({ serviceCode: r.serviceCode, net: r.net, currency: r.currency, estimatedDeliveryDays: r.estimatedDeliveryDays }));
    },

    checkAddress: (from, to) => [...uspsAddressProblems(from, 'from'), ...uspsAddressProblems(to, 'to')],

    async buy(request) {
      if (!uspsServiceByCode(request.serviceCode)) refuse(`USPS has no service ${request.serviceCode}`);
      const known = bought.get(request.reference);
      if (known && known.serviceCode !== request.serviceCode) refuse(`reference ${request.reference} was already used for ${known.serviceCode}`);
      // The idempotency key is our reference, so a repeated buy answers the label bought first.
      const label = await client.buy({ shipmentId: request.reference, serviceCode: request.serviceCode, from: request.from, to: request.to, parcel: request.parcel });
      bought.set(request.reference, { trackingNumber: label.trackingNumber, serviceCode: request.serviceCode });
      return {
        reference: request.reference,
        trackingNumber: label.trackingNumber,
        serviceCode: request.serviceCode,
        cancelled: false,
        label: label.label,
        billed: label.billed,
      };
    },

    async findPurchase(reference) {
      const known = bought.get(reference);
      let found;
      try {
        found = await client.find(reference);
      } catch (error) {
        // USPS refuses to reprint a cancelled label, which is its way of saying it is cancelled.
        if (known && error instanceof CarrierError && error.kind === 'definitive' && CANCELLED_LABEL.test(error.message)) {
          return { reference, trackingNumber: known.trackingNumber, serviceCode: known.serviceCode, cancelled: true };
        }
        throw error;
      }
      if (found) {
        const same = known?.trackingNumber === found.trackingNumber;
        return { reference, trackingNumber: found.trackingNumber, serviceCode: same ? known.serviceCode : null, cancelled: same && known.cancelled !== undefined };
      }
      // USPS no longer reprints a label once it is cancelled: this process's record says what happened.
      if (known?.cancelled) return { reference, trackingNumber: known.trackingNumber, serviceCode: known.serviceCode, cancelled: true };
      return null;
    },

    async cancel(reference) {
      const known = bought.get(reference);
      // Cancelled or a refund requested already: asking again would only be refused.
      if (known?.cancelled) return known.cancelled;
      let outcome: CancelOutcome;
      try {
        outcome = known ? await client.cancel(known.trackingNumber) : await client.cancelByShipment(reference);
      } catch (error) {
        if (error instanceof CarrierError && error.details.reason === CARRIER_REASON.notFound && !known) {
          throw new CarrierError('definitive', `USPS has no label with reference ${reference}`, { carrierCode, reason: CARRIER_REASON.notFound });
        }
        throw error;
      }
      if (known && outcome.kind !== 'refused') known.cancelled = outcome;
      return outcome;
    },

    async recoverLabel(purchase, format) {
      // A reprint by the purchase's idempotency key, in another image type; USPS allows three per label.
      const reprinted = await client.find(purchase.reference, format);
      if (!reprinted) {
        throw new CarrierError('definitive', `USPS has no label with reference ${purchase.reference}`, { carrierCode, reason: CARRIER_REASON.notFound });
      }
      if (reprinted.trackingNumber !== purchase.trackingNumber) {
        refuse(`USPS reprinted ${reprinted.trackingNumber} for reference ${purchase.reference}, not ${purchase.trackingNumber}`);
      }
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
        pickupDate: request.window.start.slice(0, 10),
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
