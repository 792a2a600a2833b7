import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Scan } from '../types.js';
import { UPS_STATUS_TYPES } from './mapping-tracking.js';

/**
 * UPS Track Alert (UPS's `UPSTrackAlert.yaml`, v2): packages subscribed by
 * tracking number, each for 14 days, whose events UPS then pushes to the webhook registered with the
 * account ("Manage Webhook Credentials"), signed with a token it takes from our token endpoint.
 * Pure: the request, the answer and an event as one of our scans.
 */

/** "Each tracking number subscription is valid for 14 days." */
export const TRACK_ALERT_LIFETIME_MS = 14 * 24 * 3_600_000;
/** "You can subscribe to up to 100 tracking numbers in each submission." */
export const TRACK_ALERT_PER_CALL = 100;
/** The subscription operation, under UPS's `/api` (standard events: enhanced ones add photos we do not use). */
export const TRACK_ALERT_SUBSCRIBE_PATH = '/track/v2/subscription/standard/package';
/** What UPS sends as the User-Agent of every event. */
export const TRACK_ALERT_USER_AGENT = 'UPSPubSubTrackingService';

const TRACKING_NUMBER = '(^1Z[0-9A-Z]{16}$)|(^1R[0-9A-Z]{14}$)|(^1R[0-9A-Z]{26}$)';
const DATE = '^\\d{4}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])$';
const TIME = '^([01]?\\d|2[0-3])([0-5]?\\d){2}$';

/** PackageSubscriptionRequest: a locale, the country, and at most 100 numbers. */
export function buildTrackAlertSubscription(trackingNumbers: readonly string[]) {
  return { locale: 'en_US', countryCode: 'US', trackingNumberList: [...trackingNumbers] };
}

/** PackageSubscriptionSuccessResponse, as far as we read it. */
export const TrackAlertSubscriptionResponse = Type.Object({
  validTrackingNumbers: Type.Optional(Type.Array(Type.String())),
  invalidTrackingNumbers: Type.Optional(Type.Array(Type.String())),
});

/** The numbers UPS subscribed and those it refused; undefined when the answer is not the documented shape. */
export function parseTrackAlertSubscription(body: unknown, asked: readonly string[]): { subscribed: string[]; refused: string[] } | undefined {
  if (!Value.Check(TrackAlertSubscriptionResponse, body)) return undefined;
  const valid = new Set(body.validTrackingNumbers ?? []);
  return { subscribed: asked.filter((n) => valid.has(n)), refused: asked.filter((n) => !valid.has(n)) };
}

/**
 * TrackingEventRequest, the webhook's body: the fields we read, checked; others UPS may add pass.
 * Not every field has a value in every message ("Note that not every field will have a value").
 */
export const TrackAlertEvent = Type.Object(
  {
    trackingNumber: Type.String({ pattern: TRACKING_NUMBER }),
    localActivityDate: Type.Optional(Type.String({ pattern: DATE })),
    localActivityTime: Type.Optional(Type.String({ pattern: TIME })),
    gmtActivityDate: Type.Optional(Type.String({ pattern: DATE })),
    gmtActivityTime: Type.Optional(Type.String({ pattern: TIME })),
    gmtOffset: Type.Optional(Type.String({ maxLength: 6 })),
    activityLocation: Type.Optional(
      Type.Object({
        city: Type.Optional(Type.String({ maxLength: 200 })),
        stateProvince: Type.Optional(Type.String({ maxLength: 50 })),
        postalCode: Type.Optional(Type.String({ maxLength: 50 })),
        country: Type.Optional(Type.String({ maxLength: 2 })),
      }),
    ),
    activityStatus: Type.Object({
      type: Type.Optional(Type.String({ maxLength: 4 })),
      code: Type.Optional(Type.String({ maxLength: 8 })),
      description: Type.Optional(Type.String({ maxLength: 200 })),
    }),
  },
  { additionalProperties: true },
);
export type TrackAlertEvent = Static<typeof TrackAlertEvent>;

/** Status codes that mean "out for delivery" whatever the type UPS sends them under (its example: type I, code OT). */
const OUT_FOR_DELIVERY_CODES = new Set(['OT', 'OF']);

/** The event's instant in UTC: its GMT date and time, else its local ones with the GMT offset (`-04.00`). */
function occurredAt(event: TrackAlertEvent): string | undefined {
  const iso = (date: string, time: string, offset: string) => {
    const t = time.padStart(6, '0');
    const ms = Date.parse(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4, 6)}${offset}`);
    return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace('.000Z', 'Z');
  };
  if (event.gmtActivityDate && event.gmtActivityTime) return iso(event.gmtActivityDate, event.gmtActivityTime, 'Z');
  const offset = /^([+-]\d{2})\.(\d{2})$/.exec(event.gmtOffset ?? '');
  if (event.localActivityDate && event.localActivityTime && offset) return iso(event.localActivityDate, event.localActivityTime, `${offset[1]}:${offset[2]}`);
  return undefined;
}

/**
 * The event as our scan, with the id a poll of the same activity gets (tracking.ts), so that a pushed
 * event and a poll that sees it again are one scan. Null for events that are not a movement of the
 * parcel (manifest, voided manifest, an updated delivery date) or have no readable time.
 */
export function trackAlertScan(event: TrackAlertEvent): Scan | null {
  const type = event.activityStatus.type ?? '';
  const code = event.activityStatus.code ?? '';
  const mapped = OUT_FOR_DELIVERY_CODES.has(code) && (type === 'I' || type === 'D' || type === 'O') ? 'out_for_delivery' : UPS_STATUS_TYPES[type];
  if (mapped === undefined || mapped === 'label_created' || mapped === 'cancelled') return null;
  const at = occurredAt(event);
  if (at === undefined) return null;
  const place = event.activityLocation;
  return {
    id: `${event.trackingNumber}:${at}:${type}:${code}`,
    occurredAt: at,
    status: mapped,
    carrierCode: type,
    description: event.activityStatus.description?.trim() ?? '',
    location: place && (place.city || place.postalCode || place.country) ? { city: place.city ?? '', postcode: place.postalCode ?? '', country: place.country ?? '' } : null,
  };
}
