import { crossesBorder, SCAN_STATUSES, type ScanStatus } from '../../domain/index.js';
import { CarrierError, type CarrierAdapter, type HttpAdapterOptions, type Scan } from '../types.js';
import { requiredCredentials, requiredSettings } from '../credentials.js';
import { createUpsClient, UPS_SHIP_TIMEOUT_MS, type UpsClient, type UpsClientConfig } from './client.js';
import { markSend, startAttempt } from '../send-ledger.js';
import { upsDefinition, UPS_SETTINGS } from './definition.js';
import { upsAddressProblems, upsParcelProblems } from './mapping-address.js';
import { upsCarrierServiceCode, UPS_INTERNATIONAL_SERVICES, type UpsServiceCode } from './services.js';
import { upsPurchaseProblems } from './mapping-international.js';
import { upsDeclaredValueFits } from './mapping-options.js';
import { upsPickupProblems } from './mapping-pickup.js';
import { localDate, timeZoneOf } from '../local-time.js';

/**
 * What this process bought under a reference, only to name the service of a purchase found later
 * (UPS's lookups do not name it): cancels and recoveries take the purchase stored in our database.
 */
interface Bought {
  trackingNumber: string;
  serviceCode: string;
}

/**
 * UPS through its published APIs (client.ts): prices from Rating, labels from Shipping, voids, and
 * scans from Tracking mapped to ours beside UPS's own status type. The client holds the credentials
 * and the OAuth token; this adapter never shows them.
 */
export function createUpsAdapter(options: HttpAdapterOptions, overrides: Partial<UpsClientConfig> = {}): CarrierAdapter {
  // The deployment's phone for pickups (CARRIER_UPS_PICKUP_PHONE): UPS requires one at the address.
  return upsAdapterOn(createUpsClient({ ...upsClientConfig(options), ...overrides }), {
    pickupPhone: options.credentials?.PICKUP_PHONE,
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
  });
}

/**
 * How long after its send a ship call UPS received may still make a label: the call can take 10 s,
 * so it is given up on only at UPS_SHIP_TIMEOUT_MS, and no lookup by reference before then proves
 * that it made none.
 */
export const UPS_SHIP_SETTLE_MS = UPS_SHIP_TIMEOUT_MS;

/** The client's settings from the adapter's options; a missing credential fails here, at first use. */
export function upsClientConfig(options: HttpAdapterOptions): UpsClientConfig {
  const credentials = requiredCredentials(upsDefinition.code, requiredSettings(UPS_SETTINGS), options);
  return {
    url: options.baseUrl,
    clientId: credentials.CLIENT_ID,
    clientSecret: credentials.CLIENT_SECRET,
    accountNumber: credentials.ACCOUNT_NUMBER,
    timeoutMs: options.timeoutMs,
  };
}

/**
 * `settleMs`: how long after an earlier attempt's ship was sent a later attempt keeps looking for its
 * label before shipping again (UPS_SHIP_SETTLE_MS).
 */
export function upsAdapterOn(client: UpsClient, settings: { pickupPhone?: string; settleMs?: number } = {}): CarrierAdapter {
  const definition = upsDefinition;
  const carrierCode = definition.code;
  const bought = new Map<string, Bought>();
  const settleMs = settings.settleMs ?? UPS_SHIP_SETTLE_MS;

  function refuse(message: string): never {
    throw new CarrierError('definitive', message, { carrierCode });
  }

  function checkAddress(from: Parameters<CarrierAdapter['checkAddress']>[0], to: Parameters<CarrierAdapter['checkAddress']>[1]) {
    return [...upsAddressProblems(from, 'from'), ...upsAddressProblems(to, 'to')];
  }

  /** Refuses, before any call, what UPS would refuse or cut: never truncated silently. */
  function refuseProblems(request: Parameters<CarrierAdapter['rate']>[0], purchase?: Parameters<CarrierAdapter['buy']>[0]): void {
    const problems = [
      ...checkAddress(request.from, request.to),
      ...upsParcelProblems(request.parcel, request.from.country),
      ...(purchase ? upsPurchaseProblems(purchase) : []),
    ];
    if (problems.length) refuse(problems.map((p) => `${p.path} ${p.message}`).join('; '));
  }

  return {
    definition,

    async rate(request) {
      if (request.serviceCode !== undefined && upsCarrierServiceCode(request.serviceCode) === undefined) return [];
      // Options UPS cannot take on this shipment leave every service out, as the quote does for a service's own.
      if (!upsDeclaredValueFits(request.options) || (request.isReturn && request.options?.signature)) return [];
      refuseProblems(request);
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
        .filter((r) => request.serviceCode === undefined || r.serviceCode === request.serviceCode)
        .filter((r) => !crossesBorder(request.from, request.to) || UPS_INTERNATIONAL_SERVICES.includes(r.serviceCode))
        .map((r) => ({ serviceCode: r.serviceCode, net: r.net, currency: r.currency, estimatedDeliveryDays: r.estimatedDeliveryDays }));
    },

    checkAddress,

    async buy(request, sends) {
      if (upsCarrierServiceCode(request.serviceCode) === undefined) refuse(`UPS has no service ${request.serviceCode}`);
      if (crossesBorder(request.from, request.to) && !UPS_INTERNATIONAL_SERVICES.includes(request.serviceCode as UpsServiceCode)) {
        refuse(`UPS does not carry ${request.serviceCode} across borders`);
      }
      const known = bought.get(request.reference);
      if (known && known.serviceCode !== request.serviceCode) refuse(`reference ${request.reference} was already used for ${known.serviceCode}`);
      refuseProblems(request, request);
      // With the purchase's ledger of sends: an earlier attempt lost before it shipped costs nothing,
      // one that shipped is waited out from its send (UPS may still be making its label).
      const earlierSentAt = sends ? await startAttempt(carrierCode, request, sends) : null;
      // A repeated buy is a retried step: the client then looks our reference up before shipping again.
      const label = await client
        .buy({
          ...request,
          labelFormat: 'gif',
          earlierAttempt: request.earlierAttempt || known !== undefined,
          ...(earlierSentAt !== null ? { settleUntil: earlierSentAt + settleMs } : {}),
          ...(sends ? { beforeShip: () => markSend(carrierCode, request.reference, sends) } : {}),
        })
        .catch(async (error: unknown) => {
          // UPS answered (a refusal or a fault of its own): a lookup after this shows what it made, as
          // before the ledger. Unanswered (cut off, timed out), the next attempt waits out the window.
          if (sends && error instanceof CarrierError && error.details.status !== undefined) await sends.answered().catch(() => undefined);
          throw error;
        });
      bought.set(request.reference, { trackingNumber: label.trackingNumber, serviceCode: request.serviceCode });
      return {
        reference: request.reference,
        trackingNumber: label.trackingNumber,
        serviceCode: request.serviceCode,
        cancelled: false,
        label: label.label,
        billed: label.billed,
        carrierShipmentId: label.carrierShipmentId,
        ...(label.documents ? { documents: label.documents } : {}),
      };
    },

    purchaseProblems: (request) => upsPurchaseProblems(request),

    async findPurchase(reference, lookup = {}) {
      const known = bought.get(reference);
      const stored = lookup.stored;
      if (stored) {
        // A purchase we stored is asked about by its tracking number: UPS need not find an unscanned
        // label by reference, and a voided label shows the manifest-voided activity.
        const scans = await client.track(stored.trackingNumber);
        return {
          reference,
          trackingNumber: stored.trackingNumber,
          serviceCode: known?.trackingNumber === stored.trackingNumber ? known.serviceCode : null,
          cancelled: scans.some((s) => s.status === 'cancelled'),
        };
      }
      // Nothing stored: a buy whose answer was lost, settled by our reference.
      const found = await client.find(reference);
      if (!found) return null;
      return {
        reference,
        trackingNumber: found.trackingNumber,
        serviceCode: known?.trackingNumber === found.trackingNumber ? known.serviceCode : null,
        cancelled: found.voided,
      };
    },

    async cancel(purchase) {
      // The void takes the shipment's identification number as stored with the purchase; for a
      // single-package shipment settled by lookup (none stored) it is the package's tracking number.
      return client.cancel(purchase.carrierShipmentId ?? purchase.trackingNumber);
    },

    async recoverLabel(purchase, format) {
      // Label Recovery makes the GIF our PDFs come from, or the ZPL thermal printers take.
      if (format !== 'gif' && format !== 'zpl') refuse(`UPS makes no ${format} labels`);
      return client.recoverLabel({ trackingNumber: purchase.trackingNumber, reference: purchase.reference, labelFormat: format });
    },

    async scans(trackingNumber) {
      const scans = await client.track(trackingNumber);
      // Label created and voided are not movements of the parcel: our scans are the ones that are.
      return scans.filter((s) => isScanStatus(s.status)).map((s): Scan => ({ ...s, status: s.status as ScanStatus }));
    },

    async schedulePickup(request) {
      const phone = request.phone?.trim() || settings.pickupPhone?.trim() || '';
      const problems = upsPickupProblems({ address: request.address, instructions: request.instructions, phone, window: request.window, totalWeightG: request.parcels.totalWeightG });
      if (problems.length) refuse(problems.join('; '));
      const booked = await client.schedulePickup({
        reference: request.reference,
        address: request.address,
        window: request.window,
        count: request.parcels.count,
        totalWeightG: request.parcels.totalWeightG,
        serviceCodes: request.parcels.serviceCodes,
        destinationCountries: request.parcels.destinationCountries ?? [],
        phone,
        ...(request.instructions ? { instructions: request.instructions } : {}),
      });
      return { confirmation: booked.prn, fee: booked.fee };
    },

    async cancelPickup(confirmation) {
      await client.cancelPickup(confirmation);
    },

    async findPickup(reference, window, address) {
      // Pickup Pending Status lists the account's pickups of the location's today and tomorrow,
      // each with the reference we booked it with; outside those days it cannot tell.
      const zone = timeZoneOf(address);
      const day = (at: string | number) => (zone ? localDate(new Date(at), zone) : new Date(at).toISOString().slice(0, 10)).replace(/-/g, '');
      const serviceDate = day(window.start);
      const now = Date.now();
      if (serviceDate !== day(now) && serviceDate !== day(now + 86_400_000)) return 'unknown';
      const pending = await client.pendingPickups();
      const found = pending.find((p) => p.reference === reference);
      return found ? { confirmation: found.prn } : null;
    },

    verifyAddress: (address) => client.validateAddress(address),

    subscribeTracking: (trackingNumbers) => client.subscribeTrackAlert(trackingNumbers),
  };
}

function isScanStatus(status: string): status is ScanStatus {
  return (SCAN_STATUSES as readonly string[]).includes(status);
}
