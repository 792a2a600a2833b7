import type { CarrierSchemaSources, SchemaErratum, SchemaOperation } from '../schema-sources.js';

const TAXPAYER = '/components/schemas/TaxpayerIdentification/properties';
const DATE_FORMAT =
  'The format is written "Date", which no JSON Schema validator knows; the description says FORMAT[YYYY-MM-DD] and the example is 2024-06-13: the standard "date" format.';

/** FedEx's documents' contradictions, each corrected where our operations read it. */
const FEDEX_ERRATA: readonly SchemaErratum[] = [
  {
    document: 'fedex/rate-api.json',
    pointer: '/components/schemas/DelayDetail/properties/date/format',
    was: '[YYYY-MM-DD]',
    value: 'date',
    reason: 'The format is written as a picture, "[YYYY-MM-DD]", which no JSON Schema validator knows; with the example 2023-11-25 it is the standard "date" format.',
  },
  { document: 'fedex/ship-api.json', pointer: `${TAXPAYER}/effectiveDate/format`, was: 'Date', value: 'date', reason: DATE_FORMAT },
  { document: 'fedex/ship-api.json', pointer: `${TAXPAYER}/expirationDate/format`, was: 'Date', value: 'date', reason: DATE_FORMAT },
  {
    document: 'fedex/pickup-api.json',
    pointer: '/components/schemas/PickupOriginDetail/properties/readyDateTimestamp/format',
    was: '[YYYY-MM-DDTHH:MM:SSZ]',
    value: undefined,
    reason:
      'The format "[YYYY-MM-DDTHH:MM:SSZ]" is a picture, not a JSON Schema format, and the document disagrees with itself on the zone (its description says YYYY-MM-DDTHH:MM:SS, its example ends in Z): the description keeps the rule.',
  },
];

/** FedEx: its OAuth token has no document (the carrier-specs README describes it), so no schema. */
const FEDEX_OPERATIONS: readonly SchemaOperation[] = [
  { name: 'rates-quotes', document: 'fedex/rate-api.json', method: 'post', path: '/rate/v1/rates/quotes' },
  { name: 'shipments', document: 'fedex/ship-api.json', method: 'post', path: '/ship/v1/shipments' },
  { name: 'shipments-cancel', document: 'fedex/ship-api.json', method: 'put', path: '/ship/v1/shipments/cancel' },
  { name: 'trackingnumbers', document: 'fedex/track.json', method: 'post', path: '/track/v1/trackingnumbers' },
  { name: 'referencenumbers', document: 'fedex/track.json', method: 'post', path: '/track/v1/referencenumbers' },
  { name: 'pickups', document: 'fedex/pickup-api.json', method: 'post', path: '/pickup/v1/pickups' },
  { name: 'pickups-cancel', document: 'fedex/pickup-api.json', method: 'put', path: '/pickup/v1/pickups/cancel' },
];

/** Where fedex's generated schemas come from (carriers/schema-sources.ts). */
export const FEDEX_SCHEMA_SOURCES: CarrierSchemaSources = { operations: FEDEX_OPERATIONS, errata: FEDEX_ERRATA };
