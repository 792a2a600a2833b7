import type { CarrierSchemaSources, SchemaErratum, SchemaOperation } from '../schema-sources.js';

/**
 * UPS's documents' contradictions, each corrected where our operations read it. Where a schema's
 * length contradicts the values the same document lists, the listed values win: they are what the
 * servers accept (carrier-specs README).
 */
const AMOUNT_LENGTH =
  'A monetary value said to be exactly 8 characters long, with no format or padding given (its only example is the placeholder "stringst"), where every other UPS amount is an unpadded decimal such as 8.75: the 8 is read as the most it holds.';

const UPS_ERRATA: readonly SchemaErratum[] = [
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
  {
    document: 'ups/Shipping.yaml',
    pointer: '/components/schemas/LabelImage_LabelImageFormat/properties/Code/minLength',
    was: 4,
    value: 3,
    reason: 'An answer\'s LabelImageFormat.Code is said to be 4 characters long, but its valid values are three (GIF, PDF).',
  },
  {
    document: 'ups/Pickup.yaml',
    pointer: '/components/schemas/PickupCreationRequest_PickupDateInfo/properties/PickupDate/minLength',
    was: 4,
    value: 8,
    reason: 'PickupDate is said to be 4 characters long, but its own format is yyyyMMdd (8).',
  },
  {
    document: 'ups/Pickup.yaml',
    pointer: '/components/schemas/PickupCreationRequest_PickupDateInfo/properties/PickupDate/maxLength',
    was: 4,
    value: 8,
    reason: 'PickupDate is said to be 4 characters long, but its own format is yyyyMMdd (8).',
  },
  {
    document: 'ups/Pickup.yaml',
    pointer: '/components/schemas/PickupCreationResponse_RateResult/properties/GrandTotalOfAllCharge/minLength',
    was: 8,
    value: 1,
    reason: AMOUNT_LENGTH,
  },
  {
    document: 'ups/Pickup.yaml',
    pointer: '/components/schemas/RateResult_ChargeDetail/properties/ChargeAmount/minLength',
    was: 8,
    value: 1,
    reason: AMOUNT_LENGTH,
  },
  {
    document: 'ups/Rating.yaml',
    pointer: '/components/schemas/RateRequest_Request/properties/RequestOption',
    was: undefined,
    value: {
      type: 'string',
      minLength: 1,
      maxLength: 17,
      description: 'Rate, Shop, Ratetimeintransit or Shoptimeintransit, as the requestoption path parameter lists them.',
    },
    reason: 'The Rate Request container requires RequestOption but never defines it; its values are those the requestoption path parameter lists.',
  },
];

/** UPS: the current versions only (the documents also keep deprecated paths of the same operations). */
const UPS_OPERATIONS: readonly SchemaOperation[] = [
  { name: 'oauth-token', document: 'ups/OAuthClientCredentials.yaml', method: 'post', path: '/security/v1/oauth/token' },
  { name: 'rating', document: 'ups/Rating.yaml', method: 'post', path: '/rating/{version}/{requestoption}' },
  { name: 'shipments', document: 'ups/Shipping.yaml', method: 'post', path: '/shipments/{version}/ship' },
  { name: 'void', document: 'ups/Shipping.yaml', method: 'delete', path: '/shipments/{version}/void/cancel/{shipmentidentificationnumber}' },
  { name: 'label-recovery', document: 'ups/Shipping.yaml', method: 'post', path: '/labels/{version}/recovery' },
  { name: 'tracking-details', document: 'ups/Tracking.yaml', method: 'get', path: '/track/v1/details/{inquiryNumber}' },
  { name: 'tracking-reference', document: 'ups/Tracking.yaml', method: 'get', path: '/track/v1/reference/details/{referenceNumber}' },
  { name: 'pickup-creation', document: 'ups/Pickup.yaml', method: 'post', path: '/pickupcreation/{version}/pickup' },
  { name: 'pickup-pending', document: 'ups/Pickup.yaml', method: 'get', path: '/shipments/{version}/pickup/{pickuptype}' },
  { name: 'pickup-cancel', document: 'ups/Pickup.yaml', method: 'delete', path: '/shipments/{version}/pickup/{CancelBy}' },
  { name: 'address-validation', document: 'ups/AddressValidation.yaml', method: 'post', path: '/addressvalidation/{version}/{requestoption}' },
  { name: 'track-alert-package', document: 'ups/UPSTrackAlert.yaml', method: 'post', path: '/subscription/{type}/package' },
];

/** Where ups's generated schemas come from (carriers/schema-sources.ts). */
export const UPS_SCHEMA_SOURCES: CarrierSchemaSources = { operations: UPS_OPERATIONS, errata: UPS_ERRATA };
