import { isRecord } from '../decode.js';

/**
 * Our tracking statuses (contract: Resources, `tracking.status`). The domain's ScanStatus is the four
 * of them that move a shipment; `label_created` and `cancelled` are recorded without moving it.
 */
export type TrackingStatus = 'label_created' | 'in_transit' | 'out_for_delivery' | 'delivered' | 'exception' | 'cancelled';

export interface UspsScan {
  /** Stable across reads: USPS events have no id, so it is made of the code, the instant and the place. */
  id: string;
  /** ISO 8601 UTC with `Z`. */
  occurredAt: string;
  status: TrackingStatus;
  /** USPS's `eventCode`, as sent. */
  carrierCode: string;
  description: string;
  location: { city: string; postcode: string; country: string } | null;
}

/**
 * USPS scan event codes (Publication 199, Appendix G-4, which the tracking document names for
 * `eventCode`) to our statuses: the one table. A code not listed is a scan of an item USPS holds
 * and moves, so it reads as `in_transit` (`USPS_DEFAULT_STATUS`); its own code is kept either way.
 */
export const USPS_EVENT_STATUS: Readonly<Record<string, TrackingStatus>> = {
  // Before USPS has the item.
  GX: 'label_created', // Shipping Label Created, USPS Awaiting Item (the labels document's "GX event")
  MA: 'label_created', // Manifest Acknowledgement (pre-shipment information sent)
  // In USPS's hands.
  '03': 'in_transit', // Accept or Pickup
  TM: 'in_transit', // Shipment Acceptance (truck manifest)
  PA: 'in_transit', // Shipment Acceptance (passive)
  '06': 'in_transit', // Forwarded
  '07': 'in_transit', // Arrival at Unit
  '10': 'in_transit', // Processed
  '14': 'in_transit', // Arrival at Pickup Point
  '16': 'in_transit', // Available for Pickup
  '19': 'in_transit', // Arrive (eVS)
  '41': 'in_transit', // Received at Opening Unit
  '42': 'in_transit', // USPS Handoff to Shipping Partner
  '71': 'in_transit', // Rescheduled to Next Delivery Day
  '80': 'in_transit', // Picked Up by Shipping Partner
  '81': 'in_transit', // Arrived Shipping Partner Facility
  '82': 'in_transit', // Departed Shipping Partner Facility
  EF: 'in_transit', // Departed Sort Facility
  SF: 'in_transit', // Departed Post Office
  PC: 'in_transit', // Sorting / Processing Complete
  OF: 'out_for_delivery', // Out for Delivery
  // Delivered.
  '01': 'delivered', // Delivered
  '17': 'delivered', // Picked Up By Agent
  '43': 'delivered', // Picked Up (by the addressee, at the Post Office)
  // Something is wrong: a failed attempt, a refusal, a return, a missort.
  '02': 'exception', // Attempted / Notice Left
  '04': 'exception', // Refused
  '05': 'exception', // Undeliverable as Addressed
  '08': 'exception', // Missent
  '09': 'exception', // Return to Sender
  '11': 'exception', // Dead Letter
  '15': 'exception', // Mis-shipped
  '21': 'exception', // No Such Number
  '22': 'exception', // Insufficient Address
  '23': 'exception', // Moved, Left No Address
  '24': 'exception', // Forward Expired
  '25': 'exception', // Addressee Unknown
  '26': 'exception', // Vacant
  '27': 'exception', // Unclaimed
  '28': 'exception', // Deceased
  '29': 'exception', // Return to Sender, other
  '30': 'exception', // Delivery Attempted, No Access to Delivery Location
  '31': 'exception', // Return to Sender, Not Picked Up
  '44': 'exception', // Customer Recall
  '51': 'exception', // Business Closed
  '52': 'exception', // Notice Left
  '53': 'exception', // Receptacle Blocked
  '54': 'exception', // Receptacle Full / Item Oversized
  '55': 'exception', // No Secure Location Available
  '56': 'exception', // No Authorized Recipient Available
  DX: 'exception', // Delivery Status Not Updated
};

export const USPS_DEFAULT_STATUS: TrackingStatus = 'in_transit';

export function uspsTrackingStatus(eventCode: string): TrackingStatus {
  return Object.hasOwn(USPS_EVENT_STATUS, eventCode) ? USPS_EVENT_STATUS[eventCode] : USPS_DEFAULT_STATUS;
}

/**
 * The event's instant in UTC. `GMTTimestamp` is UTC; failing it, `eventTimestamp` is read with its
 * own offset, or, when it has none (USPS sends local time), with `GMTOffset` (`-7:00`).
 */
export function uspsEventInstant(event: Record<string, unknown>): string | undefined {
  const gmt = typeof event.GMTTimestamp === 'string' ? event.GMTTimestamp.trim() : '';
  if (gmt) return isoUtc(/(?:Z|[+-]\d{2}:?\d{2})$/i.test(gmt) ? gmt : `${gmt}Z`);
  const local = typeof event.eventTimestamp === 'string' ? event.eventTimestamp.trim() : '';
  if (!local) return undefined;
  if (/(?:Z|[+-]\d{2}:?\d{2})$/i.test(local)) return isoUtc(local);
  const offset = typeof event.GMTOffset === 'string' ? /^([+-])?(\d{1,2}):?(\d{2})$/.exec(event.GMTOffset.trim()) : null;
  if (!offset) return undefined;
  return isoUtc(`${local}${offset[1] ?? '+'}${offset[2].padStart(2, '0')}:${offset[3]}`);
}

function isoUtc(text: string): string | undefined {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** One `TrackingEvent` as our scan, or undefined when it has no code or no readable time. */
export function parseUspsTrackingEvent(event: unknown): UspsScan | undefined {
  if (!isRecord(event)) return undefined;
  const carrierCode = typeof event.eventCode === 'string' ? event.eventCode.trim() : '';
  const occurredAt = uspsEventInstant(event);
  if (!carrierCode || !occurredAt) return undefined;
  const text = (key: string) => (typeof event[key] === 'string' ? (event[key] as string).trim() : '');
  const city = text('eventCity');
  const postcode = text('eventZIP');
  // Domestic events leave the country blank: the place is in the US then.
  const country = text('eventCountry') || 'US';
  return {
    id: `${carrierCode}:${occurredAt}:${postcode || city}`,
    occurredAt,
    status: uspsTrackingStatus(carrierCode),
    carrierCode,
    description: text('eventType'),
    location: city || postcode ? { city, postcode, country } : null,
  };
}

/**
 * A `TrackingDetails` answer as scans, oldest first (USPS lists them newest first). An event this
 * cannot read makes the whole answer unreadable rather than silently missing a scan.
 */
export function parseUspsTracking(body: unknown): UspsScan[] | undefined {
  if (!isRecord(body)) return undefined;
  const events = body.trackingEvents ?? [];
  if (!Array.isArray(events)) return undefined;
  const scans: UspsScan[] = [];
  for (const event of events) {
    const scan = parseUspsTrackingEvent(event);
    if (!scan) return undefined;
    scans.push(scan);
  }
  // Reversed first, so events of the same instant keep USPS's order, oldest first; the sort is stable.
  const unique = [...new Map(scans.reverse().map((s) => [s.id, s])).values()];
  return unique.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
}
