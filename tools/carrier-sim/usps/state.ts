/**
 * The USPS simulator's books: labels, their idempotency keys, refunds, and the scans that time
 * brings, answers shaped as the USPS v3 documents say.
 */
import type { LabelArt } from '../label-art.js';

export type MailClass = 'USPS_GROUND_ADVANTAGE' | 'PRIORITY_MAIL' | 'PRIORITY_MAIL_EXPRESS';
/** A return class is priced as the class it returns by. */
const RETURN_OF: Record<string, MailClass> = {
  USPS_GROUND_ADVANTAGE_RETURN_SERVICE: 'USPS_GROUND_ADVANTAGE',
  PRIORITY_MAIL_RETURN_SERVICE: 'PRIORITY_MAIL',
  PRIORITY_MAIL_EXPRESS_RETURN_SERVICE: 'PRIORITY_MAIL_EXPRESS',
};

export interface SimLabel {
  trackingNumber: string;
  idempotencyKey: string | undefined;
  /** The request body as received, to tell a retry from a different request under the same key. */
  requestText: string;
  /** A domestic, return or international mail class, as the purchase named it. */
  mailClass: string;
  /** Extra services bought with the label, with their prices in dollars. */
  extras?: Array<{ code: number; price: number }>;
  /** Which document's cancel and reprint serve it. */
  api?: 'labels' | 'international-labels';
  imageType: string;
  postage: number;
  zone: string;
  createdAt: number;
  mailingDate: string;
  destinationZIP: string;
  originZIP: string;
  status: 'active' | 'canceled' | 'disputed';
  refundRequestedOn?: string;
  reprints: number;
  /** What its label shows, to draw it again on a reprint. */
  art: LabelArt;
}

/** A scan from outside the timeline (the shared simulator's `/_sim/scans`), in USPS's terms. */
export interface SimExtraEvent {
  at: number;
  code: string;
  type: string;
  city: string;
  zip: string;
}

const HOUR = 3_600_000;

/**
 * The scans a label receives as time passes after its purchase: created, accepted, processed, out
 * for delivery, a failed attempt (an exception), out again, delivered. Codes are Publication 199's.
 */
export const SIM_TIMELINE: ReadonlyArray<{ afterMs: number; code: string; type: string; at: 'origin' | 'hub' | 'destination' }> = [
  { afterMs: 0, code: 'GX', type: 'Shipping Label Created, USPS Awaiting Item', at: 'origin' },
  { afterMs: 1 * HOUR, code: '03', type: 'USPS picked up item', at: 'origin' },
  { afterMs: 6 * HOUR, code: 'EF', type: 'Departed USPS Regional Facility', at: 'hub' },
  { afterMs: 20 * HOUR, code: 'OF', type: 'Out for Delivery', at: 'destination' },
  { afterMs: 26 * HOUR, code: '55', type: 'Delivery Attempted - No Secure Location Available', at: 'destination' },
  { afterMs: 44 * HOUR, code: 'OF', type: 'Out for Delivery', at: 'destination' },
  { afterMs: 50 * HOUR, code: '01', type: 'Delivered, Front Door/Porch', at: 'destination' },
];

/** When USPS has the item in hand: after this scan a refund request is refused. */
export const SIM_ACCEPTED_AFTER_MS = SIM_TIMELINE[1].afterMs;

const BASE: Record<MailClass, { first: number; perPound: number; perZone: number }> = {
  USPS_GROUND_ADVANTAGE: { first: 5.15, perPound: 0.95, perZone: 0.4 },
  PRIORITY_MAIL: { first: 9.25, perPound: 1.45, perZone: 0.6 },
  PRIORITY_MAIL_EXPRESS: { first: 30.45, perPound: 3.1, perZone: 1.1 },
};

/** A zone from the two ZIP Codes' first digits, as USPS's zones grow with distance. */
export function simZone(originZIP: string, destinationZIP: string): number {
  return Math.min(9, 1 + Math.abs(Number(originZIP[0]) - Number(destinationZIP[0])));
}

/**
 * The simulated rate card: one formula for the price search and the label, so a label charges what
 * its quote said. Billed weight is whole pounds, rounded up; a nonstandard parcel pays a fee.
 */
export function simPrice(mailClass: string, zone: number, weightLb: number, nonstandard: boolean): { price: number; fee: number } {
  const b = BASE[RETURN_OF[mailClass] ?? (mailClass as MailClass)];
  const pounds = Math.max(1, Math.ceil(weightLb - 1e-9));
  const price = Math.round((b.first + b.perPound * (pounds - 1) + b.perZone * (zone - 1)) * 100) / 100;
  return { price, fee: nonstandard ? 4 : 0 };
}

export function createSimBooks() {
  const labels = new Map<string, SimLabel>();
  const byKey = new Map<string, string>();
  let sequence = 0;

  return {
    labels,
    nextTrackingNumber(): string {
      sequence++;
      // 22 digits, as USPS's IMpb tracking numbers are.
      return `92055900066622${String(sequence).padStart(8, '0')}`;
    },
    add(label: SimLabel) {
      labels.set(label.trackingNumber, label);
      if (label.idempotencyKey) byKey.set(label.idempotencyKey.toLowerCase(), label.trackingNumber);
    },
    byTracking(trackingNumber: string): SimLabel | undefined {
      return labels.get(trackingNumber);
    },
    byKey(key: string): SimLabel | undefined {
      const trackingNumber = byKey.get(key.toLowerCase());
      return trackingNumber === undefined ? undefined : labels.get(trackingNumber);
    },
  };
}
export type SimBooks = ReturnType<typeof createSimBooks>;

/** The label's scans up to `now`, newest first, as `TrackingDetails.trackingEvents` lists them. */
export function simEvents(label: SimLabel, now: number, extra: readonly SimExtraEvent[] = []): Array<Record<string, unknown>> {
  const places = { origin: ['WASHINGTON', label.originZIP], hub: ['REGIONAL DISTRIBUTION CENTER', label.destinationZIP.slice(0, 3) + '98'], destination: ['SAINT LOUIS', label.destinationZIP] };
  const timeline = label.status === 'active' ? SIM_TIMELINE : SIM_TIMELINE.slice(0, 1);
  const events: SimExtraEvent[] = [
    ...timeline.map((e) => ({ at: label.createdAt + e.afterMs, code: e.code, type: e.type, city: places[e.at][0], zip: places[e.at][1] })),
    ...extra,
  ];
  return events
    .filter((e) => e.at <= now)
    .sort((a, b) => a.at - b.at)
    .map((e) => {
      const gmt = new Date(e.at);
      const { city, zip } = e;
      return {
        eventType: e.type,
        eventTimestamp: new Date(gmt.getTime() - 5 * HOUR).toISOString().slice(0, 19),
        GMTTimestamp: gmt.toISOString(),
        GMTOffset: '-05:00',
        eventCountry: '',
        eventCity: city,
        eventState: 'MO',
        eventZIP: zip,
        eventCode: e.code,
      };
    })
    .reverse();
}
