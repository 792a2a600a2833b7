import type { Erratum } from '../errata.js';

const TAXPAYER = '/components/schemas/TaxpayerIdentification/properties';
const DATE_FORMAT =
  'The format is written "Date", which no JSON Schema validator knows; the description says FORMAT[YYYY-MM-DD] and the example is 2024-06-13: the standard "date" format.';

/** FedEx's documents' contradictions, each corrected where our operations read it. */
export const FEDEX_ERRATA: readonly Erratum[] = [
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
