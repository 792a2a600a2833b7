import type { ScanStatus } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { Scan } from '../types.js';

/** `GET /shipments/{shipmentTrackingNumber}/tracking` (exp-api-shipments-tracking), its query and its answer as our scans. */
export function dhlTrackingPath(trackingNumber: string): string {
  return `/shipments/${encodeURIComponent(trackingNumber)}/tracking`;
}

/** Every checkpoint of the shipment, each with its GMT offset so that its time is an instant. */
export const DHL_TRACKING_QUERY = { trackingView: 'all-checkpoints', levelOfDetail: 'shipment', requestGMTOffsetPerEvent: 'true' } as const;

/**
 * DHL Express checkpoint codes (`events[].typeCode`) as our scan statuses, one table (the carrier's
 * code is kept beside ours on every scan). A code not listed is a movement on the way: in transit.
 * - delivered: OK delivered, DD delivered damaged;
 * - out for delivery: WC with courier for delivery;
 * - exception: a delivery that did not happen or a shipment held (not home, bad or closed address,
 *   refused, on hold, held for payment, moved, missorted, missed cycle, stopped, clearance delays,
 *   returned to shipper, destroyed);
 * - in transit: picked up, processed, departed, arrived, customs updates and the rest.
 */
export const DHL_CHECKPOINT_STATUS: Readonly<Record<string, ScanStatus>> = {
  OK: 'delivered',
  DD: 'delivered',
  WC: 'out_for_delivery',
  NH: 'exception',
  BA: 'exception',
  CA: 'exception',
  RD: 'exception',
  OH: 'exception',
  HP: 'exception',
  CM: 'exception',
  MS: 'exception',
  MD: 'exception',
  SS: 'exception',
  CD: 'exception',
  UD: 'exception',
  RT: 'exception',
  DS: 'exception',
};

export function dhlScanStatus(typeCode: string): ScanStatus {
  return DHL_CHECKPOINT_STATUS[typeCode] ?? 'in_transit';
}

/** `2023-08-09`, `13:56:21` and `+10:00` (or none: UTC) as an ISO instant; undefined when unreadable. */
function instant(date: unknown, time: unknown, offset: unknown): string | undefined {
  if (typeof date !== 'string' || typeof time !== 'string') return undefined;
  const zone = typeof offset === 'string' && /^[+-]\d{2}:\d{2}$/.test(offset) ? offset : 'Z';
  const ms = Date.parse(`${date}T${time}${zone}`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `SYDNEY-AU` (a service area's description) as a city and a country. */
function locationOf(serviceArea: unknown): Scan['location'] {
  const area = Array.isArray(serviceArea) ? serviceArea.find(isRecord) : undefined;
  const description = typeof area?.description === 'string' ? area.description : '';
  const m = /^(.*?)-([A-Z]{2})$/.exec(description.trim());
  return m ? { city: m[1].trim(), postcode: '', country: m[2] } : null;
}

/** The shipment's checkpoints as scans, oldest first; undefined when the answer is not a tracking answer. */
export function parseDhlTracking(body: unknown, trackingNumber: string): Scan[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.shipments)) return undefined;
  const shipment = body.shipments.filter(isRecord).find((s) => s.shipmentTrackingNumber === trackingNumber) ?? body.shipments.find(isRecord);
  if (!shipment) return [];
  if (!Array.isArray(shipment.events)) return undefined;
  const scans: Scan[] = [];
  for (const event of shipment.events.filter(isRecord)) {
    const at = instant(event.date, event.time, event.GMTOffset);
    const code = typeof event.typeCode === 'string' ? event.typeCode : '';
    if (!at || code === '') continue;
    scans.push({
      id: `${trackingNumber}:${at}:${code}`,
      occurredAt: at,
      status: dhlScanStatus(code),
      carrierCode: code,
      description: typeof event.description === 'string' ? event.description : '',
      location: locationOf(event.serviceArea),
    });
  }
  return scans.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
}

/** `GET /tracking` (exp-api-shipments-tracking-multi): shipments by the customer reference they were created with. */
export const DHL_TRACKING_MULTI_PATH = '/tracking';

/** How far back a lookup by reference searches (DHL wants the search bounded by dates). */
const REFERENCE_LOOKBACK_DAYS = 30;

/** The query of a lookup by our reference on the account, over the last weeks to tomorrow. */
export function dhlReferenceQuery(reference: string, accountNumber: string, now: Date): Record<string, string> {
  const day = (offsetDays: number) => new Date(now.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
  return {
    shipmentReference: reference,
    shipmentReferenceType: 'CU',
    shipperAccountNumber: accountNumber,
    dateRangeFrom: day(-REFERENCE_LOOKBACK_DAYS),
    dateRangeTo: day(1),
    trackingView: 'shipment-details-only',
    levelOfDetail: 'shipment',
  };
}

export interface DhlFoundShipment {
  trackingNumber: string;
  productCode: string | null;
  originCountry: string | null;
  destinationCountry: string | null;
}

/** The shipments a lookup by reference found; undefined when the answer is not a tracking answer. */
export function parseDhlFoundShipments(body: unknown): DhlFoundShipment[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.shipments)) return undefined;
  const country = (party: unknown) => (isRecord(party) && isRecord(party.postalAddress) && typeof party.postalAddress.countryCode === 'string' ? party.postalAddress.countryCode : null);
  return body.shipments.filter(isRecord).flatMap((s) =>
    typeof s.shipmentTrackingNumber === 'string' && s.shipmentTrackingNumber !== ''
      ? [{ trackingNumber: s.shipmentTrackingNumber, productCode: typeof s.productCode === 'string' ? s.productCode : null, originCountry: country(s.shipperDetails), destinationCountry: country(s.receiverDetails) }]
      : [],
  );
}
