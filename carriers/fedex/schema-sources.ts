import type { CarrierSchemaSources, SchemaErratum, SchemaOperation } from '../schema-sources.js';

const TAXPAYER = '/components/schemas/TaxpayerIdentification/properties';
const SAMPLES_AS_SCHEMAS = (samples: number) =>
  `The request body is "one of" the full schema and ${samples} sample payloads, each a schema holding nothing but an example, which every value matches: every request then matches two branches at least, and oneOf refuses them all. The samples are the full schema's examples (tools/carrier-schemas/README.md, "Examples"); the full schema is the body's schema.`;
const bodyRef = (path: string, method: string) => `/paths/${path.replace(/\//g, '~1')}/${method}/requestBody/content/application~1json/schema/$ref`;
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
  {
    document: 'fedex/rate-api.json',
    pointer: bodyRef('/rate/v1/rates/quotes', 'post'),
    was: '#/components/schemas/body',
    value: '#/components/schemas/Full_Schema_Quote_Rate',
    reason: SAMPLES_AS_SCHEMAS(22),
  },
  {
    document: 'fedex/pickup-api.json',
    pointer: bodyRef('/pickup/v1/pickups', 'post'),
    was: '#/components/schemas/body',
    value: '#/components/schemas/Full_Schema_Create_Pickup',
    reason: SAMPLES_AS_SCHEMAS(3),
  },
  {
    document: 'fedex/pickup-api.json',
    pointer: bodyRef('/pickup/v1/pickups/cancel', 'put'),
    was: '#/components/schemas/body_2',
    value: '#/components/schemas/Full_Schema_Cancel_Pickup',
    reason: SAMPLES_AS_SCHEMAS(2),
  },
];

/**
 * The documents' own request examples that the generator checks against the request schemas (and
 * copies into the files, `x-examples`, for the tests). Rate's other 21 samples and the reference
 * search's example break the schemas where the schemas are right, so they are not listed: they write
 * postal codes as numbers (a postal code is text: "K1A 0B1", leading zeros) and weights as strings
 * where the schema and every field description say a number, and the reference search's example
 * names `shipDateEnd` where the schema requires `shipDateEndDate`.
 */
const sample = (name: string) => `/components/schemas/${name}/example`;

/** FedEx: its OAuth token has no document (the carrier-specs README describes it), so no schema. */
const FEDEX_OPERATIONS: readonly SchemaOperation[] = [
  { name: 'rates-quotes', document: 'fedex/rate-api.json', method: 'post', path: '/rate/v1/rates/quotes', examples: [sample('Intra_Canada_Rate_Quote')] },
  { name: 'shipments', document: 'fedex/ship-api.json', method: 'post', path: '/ship/v1/shipments' },
  { name: 'shipments-cancel', document: 'fedex/ship-api.json', method: 'put', path: '/ship/v1/shipments/cancel' },
  { name: 'trackingnumbers', document: 'fedex/track.json', method: 'post', path: '/track/v1/trackingnumbers' },
  { name: 'referencenumbers', document: 'fedex/track.json', method: 'post', path: '/track/v1/referencenumbers' },
  {
    name: 'pickups',
    document: 'fedex/pickup-api.json',
    method: 'post',
    path: '/pickup/v1/pickups',
    examples: [sample('Create_Pickup_Ground'), sample('Create_Pickup_Express'), sample('MinimumSamplePayload-ExpressFreightPickup')],
  },
  {
    name: 'pickups-cancel',
    document: 'fedex/pickup-api.json',
    method: 'put',
    path: '/pickup/v1/pickups/cancel',
    examples: [sample('Cancel_Pickup_Ground'), sample('Cancel_Pickup_Express')],
  },
];

/** Where fedex's generated schemas come from (carriers/schema-sources.ts). */
export const FEDEX_SCHEMA_SOURCES: CarrierSchemaSources = { operations: FEDEX_OPERATIONS, errata: FEDEX_ERRATA };
