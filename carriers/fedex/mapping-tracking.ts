import type { ScanStatus } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { Referencenumbers, Trackingnumbers } from './schemas/index.js';

export const FEDEX_TRACK_PATH = '/track/v1/trackingnumbers';
export const FEDEX_REFERENCE_PATH = '/track/v1/referencenumbers';

/** Our tracking statuses (contract: Resources, `tracking.status`). */
export type FedexScanStatus = ScanStatus | 'label_created' | 'cancelled';

export interface FedexScan {
  /** Stable across reads: FedEx gives scan events no id, so it is made of the event's own fields. */
  id: string;
  occurredAt: string;
  status: FedexScanStatus;
  /** FedEx's event type as sent (`PU`, `DL`, …), kept beside ours (contract: Carriers). */
  carrierCode: string;
  description: string;
  location: { city: string; postcode: string; country: string } | null;
}

/**
 * The one table from FedEx's scan event types (Track `scanEvents[].eventType`, the codes of its
 * Track Service Scan Codes appendix, which the document links to) to ours. A code not listed is
 * left out rather than guessed: a wrong "delivered" is worse than a late one.
 */
export const FEDEX_EVENT_TYPES: Readonly<Record<string, FedexScanStatus>> = {
  OC: 'label_created', // Shipment information sent to FedEx: the label exists, the parcel is not with FedEx
  PU: 'in_transit', // Picked up
  AP: 'in_transit', // At pickup location
  AR: 'in_transit', // Arrived at a FedEx location
  AF: 'in_transit', // At the local FedEx facility
  DP: 'in_transit', // Departed a FedEx location
  IT: 'in_transit', // In transit
  CC: 'in_transit', // Cleared customs
  HL: 'in_transit', // Held at a FedEx location for the recipient: not delivered yet
  OD: 'out_for_delivery', // On a FedEx vehicle for delivery
  DL: 'delivered', // Delivered
  DE: 'exception', // Delivery exception (no one in, address problem)
  SE: 'exception', // Shipment exception
  CD: 'exception', // Clearance delay
  DY: 'exception', // Delay
  RS: 'exception', // Returned to the shipper
  CA: 'cancelled', // Shipment cancelled: the label was voided
};

/** `POST /track/v1/trackingnumbers` for one number, with every scan. */
export function buildTrackRequest(trackingNumber: string) {
  return buildTrackManyRequest([trackingNumber]);
}

/** "Maximum limit is 30" tracking numbers in one `trackingnumbers` request. */
export const FEDEX_TRACK_MAX = 30;

/** `POST /track/v1/trackingnumbers` for up to 30 numbers at once, with every scan. */
export function buildTrackManyRequest(trackingNumbers: readonly string[]) {
  return { includeDetailedScans: true, trackingInfo: trackingNumbers.map((trackingNumber) => ({ trackingNumberInfo: { trackingNumber } })) } satisfies Trackingnumbers.Request;
}

/**
 * `POST /track/v1/referencenumbers`: our shipment id as a CUSTOMER_REFERENCE of our account's
 * shipments, shipped within `days` of `around` (the schema requires both dates).
 */
export function buildReferenceRequest(p: { reference: string; accountNumber: string; around: Date; daysBefore?: number; daysAfter?: number }) {
  const day = (offset: number) => new Date(p.around.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  return {
    referencesInformation: {
      type: 'CUSTOMER_REFERENCE',
      value: p.reference,
      accountNumber: p.accountNumber,
      shipDateBegin: day(-(p.daysBefore ?? 30)),
      shipDateEndDate: day(p.daysAfter ?? 1),
    },
    includeDetailedScans: true,
  } satisfies Referencenumbers.Request;
}

const records = (value: unknown): Record<string, unknown>[] => (Array.isArray(value) ? value.filter(isRecord) : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Every track result of an answer (both operations share the shape). */
function trackResults(body: unknown): Record<string, unknown>[] | undefined {
  if (!isRecord(body) || !isRecord(body.output)) return undefined;
  return records(body.output.completeTrackResults).flatMap((complete) => records(complete.trackResults));
}

/** The tracking number FedEx does not know: its error in the result, 200 or not (Track answers both ways). */
export const FEDEX_TRACKING_NOT_FOUND = 'TRACKING.TRACKINGNUMBER.NOTFOUND';

function scanOf(trackingNumber: string, event: Record<string, unknown>): FedexScan | null | undefined {
  const code = text(event.eventType) || text(event.derivedStatusCode);
  if (!code) return undefined;
  const status = FEDEX_EVENT_TYPES[code];
  if (status === undefined) return null;
  const ms = Date.parse(text(event.date));
  if (Number.isNaN(ms)) return undefined;
  const occurredAt = new Date(ms).toISOString().replace('.000Z', 'Z');
  const place = isRecord(event.scanLocation) ? event.scanLocation : {};
  const location = place.city || place.postalCode || place.countryCode
    ? { city: text(place.city), postcode: text(place.postalCode), country: text(place.countryCode) }
    : null;
  const description = (text(event.eventDescription) || text(event.derivedStatus)).trim();
  return { id: `${trackingNumber}:${occurredAt}:${code}`, occurredAt, status, carrierCode: code, description, location };
}

/**
 * Every scan of the package with that number, oldest first (FedEx lists the newest first), or
 * null when FedEx does not know the number. Undefined when the answer is not the documented
 * shape or an event has no readable time.
 */
export function parseTrackResponse(body: unknown, trackingNumber: string): FedexScan[] | null | undefined {
  const results = trackResults(body);
  if (!results) return undefined;
  const result = results.find((r) => isRecord(r.trackingNumberInfo) && r.trackingNumberInfo.trackingNumber === trackingNumber) ?? (results.length === 1 ? results[0] : undefined);
  return scansOfResult(trackingNumber, result);
}

/**
 * Each number's scans from one answer for many, as parseTrackResponse reads one (null: FedEx does
 * not know it); undefined when the answer is not the documented shape.
 */
export function parseTrackManyResponse(body: unknown, trackingNumbers: readonly string[]): Map<string, FedexScan[] | null> | undefined {
  const results = trackResults(body);
  if (!results) return undefined;
  const answers = new Map<string, FedexScan[] | null>();
  for (const n of trackingNumbers) {
    const scans = scansOfResult(n, results.find((r) => isRecord(r.trackingNumberInfo) && r.trackingNumberInfo.trackingNumber === n));
    if (scans === undefined) return undefined;
    answers.set(n, scans);
  }
  return answers;
}

function scansOfResult(trackingNumber: string, result: Record<string, unknown> | undefined): FedexScan[] | null | undefined {
  if (!result) return null;
  if (isRecord(result.error) && result.error.code === FEDEX_TRACKING_NOT_FOUND) return null;
  const scans: FedexScan[] = [];
  for (const event of [...records(result.scanEvents)].reverse()) {
    const scan = scanOf(trackingNumber, event);
    if (scan === undefined) return undefined;
    if (scan !== null && !scans.some((s) => s.id === scan.id)) scans.push(scan);
  }
  return scans.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
}

/** A package found by our reference (the lost-answer settlement). */
export interface FedexFoundPackage {
  trackingNumber: string;
  /** FedEx's `serviceDetail.type` (`FEDEX_GROUND`), where it says. */
  serviceType: string | null;
  /** The shipment was cancelled at FedEx (its latest status is CA). */
  cancelled: boolean;
}

/** The packages a reference lookup found that carry exactly our reference; undefined when malformed. */
export function parseReferenceResponse(body: unknown, reference: string): FedexFoundPackage[] | undefined {
  const results = trackResults(body);
  if (!results) return undefined;
  const found: FedexFoundPackage[] = [];
  for (const result of results) {
    const info = isRecord(result.trackingNumberInfo) ? result.trackingNumberInfo : {};
    const identifiers = isRecord(result.additionalTrackingInfo) ? records(result.additionalTrackingInfo.packageIdentifiers) : [];
    // FedEx matches references loosely; ours must be the package's own customer reference, exactly.
    const ours = identifiers.some((id) => id.type === 'CUSTOMER_REFERENCE' && Array.isArray(id.value) && id.value.includes(reference));
    if (!ours || typeof info.trackingNumber !== 'string') continue;
    const latest = isRecord(result.latestStatusDetail) ? result.latestStatusDetail : {};
    const serviceType = isRecord(result.serviceDetail) && typeof result.serviceDetail.type === 'string' ? result.serviceDetail.type : null;
    found.push({ trackingNumber: info.trackingNumber, serviceType, cancelled: latest.code === 'CA' || latest.derivedCode === 'CA' });
  }
  return found;
}
