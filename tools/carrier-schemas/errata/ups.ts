import type { Erratum } from '../errata.js';

/**
 * UPS's documents' contradictions, each corrected where our operations read it. Where a schema's
 * length contradicts the values the same document lists, the listed values win: they are what the
 * servers accept (carrier-specs README).
 */
export const UPS_ERRATA: readonly Erratum[] = [
  {
    document: 'ups/Rating.yaml',
    pointer: '/components/schemas/Shipment_Service/properties/Code/minLength',
    was: 3,
    value: 2,
    reason: 'Shipment.Service.Code is said to be 3 characters long, but every service code the same field lists is two (01, 03, 11, 65…).',
  },
  {
    document: 'ups/Rating.yaml',
    pointer: '/paths/~1rating~1{version}~1{requestoption}/post/parameters/4/schema/maxLength',
    was: 10,
    value: 17,
    reason: 'The requestoption path parameter is limited to 10 characters, yet its own listed values include Ratetimeintransit and Shoptimeintransit (17).',
  },
  {
    document: 'ups/Shipping.yaml',
    pointer: '/components/schemas/LabelRecovery_LabelSpecification_LabelImageFormat/properties/Code/minLength',
    was: 4,
    value: 3,
    reason: 'Label Recovery LabelImageFormat.Code is said to be 4 characters long, but its valid values are three (GIF, PDF, ZPL, EPL, SPL).',
  },
];
