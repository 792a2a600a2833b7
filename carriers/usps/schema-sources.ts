import type { CarrierSchemaSources, SchemaErratum, SchemaOperation } from '../schema-sources.js';

const NOTIFICATION =
  'A pickup contact is one of an email or an SMS notification (oneOf), but neither requires its only field, so an email contact matches both and oneOf refuses every contact; each requires its own field.';

/** USPS's documents' contradictions, each corrected where our operations read it. */
const USPS_ERRATA: readonly SchemaErratum[] = [
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

/** USPS: each API under its own prefix (`/labels/v3`, `/prices/v3`…); the OAuth token has no document of its own. */
const USPS_OPERATIONS: readonly SchemaOperation[] = [
  { name: 'payment-authorization', document: 'usps/payments.yaml', method: 'post', path: '/payment-authorization' },
  { name: 'base-rates', document: 'usps/domestic-prices.yaml', method: 'post', path: '/base-rates/search' },
  { name: 'extra-service-rates', document: 'usps/domestic-prices.yaml', method: 'post', path: '/extra-service-rates/search' },
  { name: 'label', document: 'usps/domestic-labels.yaml', method: 'post', path: '/label' },
  { name: 'label-cancel', document: 'usps/domestic-labels.yaml', method: 'delete', path: '/label/{trackingNumber}' },
  { name: 'label-cancel-by-key', document: 'usps/domestic-labels.yaml', method: 'delete', path: '/label' },
  { name: 'label-reprint', document: 'usps/domestic-labels.yaml', method: 'post', path: '/label-reprint/{trackingNumber}' },
  { name: 'label-reprint-by-key', document: 'usps/domestic-labels.yaml', method: 'post', path: '/label-reprint' },
  { name: 'return-label', document: 'usps/domestic-labels.yaml', method: 'post', path: '/return-label' },
  { name: 'tracking', document: 'usps/tracking.yaml', method: 'get', path: '/tracking/{trackingNumber}' },
  { name: 'scan-form', document: 'usps/scan-forms.yaml', method: 'post', path: '/scan-form' },
  { name: 'carrier-pickup', document: 'usps/carrier-pickup.yaml', method: 'post', path: '/carrier-pickup' },
  { name: 'carrier-pickup-get', document: 'usps/carrier-pickup.yaml', method: 'get', path: '/carrier-pickup/{confirmationNumber}' },
  { name: 'carrier-pickup-cancel', document: 'usps/carrier-pickup.yaml', method: 'delete', path: '/carrier-pickup/{confirmationNumber}' },
  { name: 'international-label', document: 'usps/international-labels.yaml', method: 'post', path: '/international-label' },
  { name: 'international-label-cancel', document: 'usps/international-labels.yaml', method: 'delete', path: '/international-label/{trackingNumber}' },
  { name: 'international-label-cancel-by-key', document: 'usps/international-labels.yaml', method: 'delete', path: '/international-label' },
  { name: 'international-label-reprint', document: 'usps/international-labels.yaml', method: 'post', path: '/international-label-reprint/{trackingNumber}' },
  { name: 'international-base-rates', document: 'usps/international-prices.yaml', method: 'post', path: '/base-rates/search' },
  { name: 'international-extra-service-rates', document: 'usps/international-prices.yaml', method: 'post', path: '/extra-service-rates/search' },
  { name: 'address', document: 'usps/addresses.yaml', method: 'get', path: '/address' },
];

/** Where usps's generated schemas come from (carriers/schema-sources.ts). */
export const USPS_SCHEMA_SOURCES: CarrierSchemaSources = { operations: USPS_OPERATIONS, errata: USPS_ERRATA };
