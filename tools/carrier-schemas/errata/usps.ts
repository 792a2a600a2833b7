import type { Erratum } from '../errata.js';

const NOTIFICATION =
  'A pickup contact is one of an email or an SMS notification (oneOf), but neither requires its only field, so an email contact matches both and oneOf refuses every contact; each requires its own field.';

/** USPS's documents' contradictions, each corrected where our operations read it. */
export const USPS_ERRATA: readonly Erratum[] = [
  {
    document: 'usps/tracking.yaml',
    pointer: '/components/schemas/TrackingEvent/properties/eventTimestamp/format',
    was: 'date-time',
    value: undefined,
    reason:
      'eventTimestamp is "the date of the event" in local time: the same event carries GMTTimestamp ("in Greenwich Mean Time") and GMTOffset beside it, so it has no offset of its own, which the date-time format requires.',
  },
  {
    document: 'usps/carrier-pickup.yaml',
    pointer: '/components/schemas/EmailNotification/required',
    was: undefined,
    value: ['email'],
    reason: NOTIFICATION,
  },
  {
    document: 'usps/carrier-pickup.yaml',
    pointer: '/components/schemas/SMSNotification/required',
    was: undefined,
    value: ['cellNumber'],
    reason: NOTIFICATION,
  },
];
