import { UPS_SCHEMAS, type TrackingDetails } from './schemas/index.js';

type TrackActivity = TrackingDetails.Activity;

/**
 * The shipments of a Tracking answer, when it is the shape the document defines for the operation
 * (`tracking-details` or `tracking-reference`, which answer alike) and holds them; else undefined.
 */
function trackedShipments(operation: 'tracking-details' | 'tracking-reference', body: unknown): TrackingDetails.Shipment[] | undefined {
  if (UPS_SCHEMAS[operation].responseProblems(200, body).length > 0) return undefined;
  return (body as TrackingDetails.Response200).trackResponse?.shipment;
}

/** Our tracking statuses (contract: Resources, `tracking.status`). */
export type UpsScanStatus = 'label_created' | 'in_transit' | 'out_for_delivery' | 'delivered' | 'exception' | 'cancelled';

export interface UpsScan {
  /** Stable across reads: UPS gives activities no id, so it is made of the activity's own fields. */
  id: string;
  occurredAt: string;
  status: UpsScanStatus;
  /** UPS's activity status type as sent (`I`, `D`, `X`, …), kept beside ours (contract: Carriers). */
  carrierCode: string;
  description: string;
  location: { city: string; postcode: string; country: string } | null;
}

/**
 * The one table from UPS's activity status `type` to ours. The Tracking document names the field
 * ("The activity status type", example `X`) and points to its appendix for the values, which are:
 */
export const UPS_STATUS_TYPES: Readonly<Record<string, UpsScanStatus>> = {
  M: 'label_created', // Manifest: billing information received, the label exists
  MV: 'cancelled', // Manifest voided: the label was voided
  P: 'in_transit', // Pickup scan
  I: 'in_transit', // In transit (origin and destination scans, departures, arrivals)
  W: 'in_transit', // Warehousing
  DO: 'in_transit', // Delivered to the origin freight station: not the consignee yet
  DD: 'in_transit', // Delivered to the destination freight station: not the consignee yet
  O: 'out_for_delivery', // Out for delivery
  X: 'exception', // Exception (delay, failed attempt, address problem)
  RS: 'exception', // Returned to shipper
  D: 'delivered', // Delivered
};

/**
 * An activity's instant in UTC: its GMT date and time where UPS gives them (GMT time may drop its
 * leading zero, `74700` = 07:47:00), else its local date and time with its GMT offset.
 */
function occurredAt(activity: TrackActivity): string | undefined {
  const iso = (date: string, time: string, offset: string) => {
    const t = time.padStart(6, '0');
    const text = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4, 6)}${offset}`;
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace('.000Z', 'Z');
  };
  if (activity.gmtDate && activity.gmtTime && /^\d{5,6}$/.test(activity.gmtTime)) return iso(activity.gmtDate, activity.gmtTime, 'Z');
  if (activity.date && activity.time && activity.gmtOffset && /^[+-]\d{2}:\d{2}$/.test(activity.gmtOffset)) {
    return iso(activity.date, activity.time, activity.gmtOffset);
  }
  return undefined;
}

function scanOf(trackingNumber: string, activity: TrackActivity): UpsScan | null | undefined {
  const type = activity.status?.type;
  if (!type) return undefined;
  const status = UPS_STATUS_TYPES[type];
  // A type UPS adds later is left out rather than guessed: a wrong "delivered" is worse than a late one.
  if (status === undefined) return null;
  const at = occurredAt(activity);
  if (at === undefined) return undefined;
  const address = activity.location?.address;
  const location = address && (address.city || address.postalCode || address.countryCode)
    ? { city: address.city ?? '', postcode: address.postalCode ?? '', country: address.countryCode ?? address.country ?? '' }
    : null;
  const code = activity.status?.code ?? activity.status?.statusCode ?? '';
  return {
    id: `${trackingNumber}:${at}:${type}:${code}`,
    occurredAt: at,
    status,
    carrierCode: type,
    description: activity.status?.description?.trim() || activity.status?.simplifiedTextDescription?.trim() || '',
    location,
  };
}

/**
 * Every scan of the package with that tracking number, oldest first (UPS sends the newest first).
 * Undefined when the answer is not the documented shape or an activity has no readable time.
 */
export function parseTrackResponse(body: unknown, trackingNumber: string): UpsScan[] | undefined {
  const shipments = trackedShipments('tracking-details', body);
  if (!shipments) return undefined;
  const packages = shipments.flatMap((shipment) => shipment.package ?? []);
  const pkg = packages.find((p) => p.trackingNumber === trackingNumber) ?? (packages.length === 1 ? packages[0] : undefined);
  if (!pkg) return [];
  const scans: UpsScan[] = [];
  // UPS lists the newest first; read from the end so scans of the same second keep UPS's sequence.
  for (const activity of [...(pkg.activity ?? [])].reverse()) {
    const scan = scanOf(trackingNumber, activity);
    if (scan === undefined) return undefined;
    if (scan !== null && !scans.some((s) => s.id === scan.id)) scans.push(scan);
  }
  return scans.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
}

/** A package found by our reference (the lost-answer settlement). */
export interface UpsFoundPackage {
  trackingNumber: string;
  /** The label was voided at UPS (its latest status is the manifest-voided type). */
  voided: boolean;
}

/** The packages a reference lookup found that carry exactly our reference; undefined when malformed. */
export function parseReferenceTrackResponse(body: unknown, reference: string): UpsFoundPackage[] | undefined {
  const shipments = trackedShipments('tracking-reference', body);
  if (!shipments) return undefined;
  const found: UpsFoundPackage[] = [];
  for (const shipment of shipments) {
    for (const pkg of shipment.package ?? []) {
      // UPS matches references loosely (prefixes, other accounts' packages); ours must match exactly.
      if (!pkg.trackingNumber || !(pkg.referenceNumber ?? []).some((r) => r.number === reference)) continue;
      found.push({ trackingNumber: pkg.trackingNumber, voided: pkg.currentStatus?.type === 'MV' });
    }
  }
  return found;
}
