import type { CarrierSchemaSources, SchemaErratum, SchemaOperation } from '../schema-sources.js';

const DOCUMENT = 'dhl-express/mydhl-api-3.1.1.yaml';
const CREATE_SHIPMENT = '/components/schemas/supermodelIoLogisticsExpressCreateShipmentRequest/properties/content/properties/exportDeclaration/properties';
const DUPLICATE_CHA = 'The customs document type codes list "CHA" twice (items 6 and 49); JSON Schema requires an enum\'s items to be unique, so no validator accepts the schema until one goes.';

/** MyDHL API 3.1.1's contradictions, each corrected where our operations read it. */
const DHL_EXPRESS_ERRATA: readonly SchemaErratum[] = [
  { document: DOCUMENT, pointer: `${CREATE_SHIPMENT}/customsDocuments/items/properties/typeCode/enum/49`, was: 'CHA', value: undefined, reason: DUPLICATE_CHA },
  {
    document: DOCUMENT,
    pointer: `${CREATE_SHIPMENT}/lineItems/items/properties/customsDocuments/items/properties/typeCode/enum/49`,
    was: 'CHA',
    value: undefined,
    reason: DUPLICATE_CHA,
  },
];

/** MyDHL API 3.1.1's operations we use. */
const DHL_EXPRESS_OPERATIONS: readonly SchemaOperation[] = [
  { name: 'rates', document: DOCUMENT, method: 'get', path: '/rates' },
  { name: 'rates-many', document: DOCUMENT, method: 'post', path: '/rates' },
  { name: 'shipments', document: DOCUMENT, method: 'post', path: '/shipments' },
  { name: 'shipments-tracking', document: DOCUMENT, method: 'get', path: '/shipments/{shipmentTrackingNumber}/tracking' },
  { name: 'tracking', document: DOCUMENT, method: 'get', path: '/tracking' },
  { name: 'pickups', document: DOCUMENT, method: 'post', path: '/pickups' },
  { name: 'pickups-cancel', document: DOCUMENT, method: 'delete', path: '/pickups/{dispatchConfirmationNumber}' },
  { name: 'address-validate', document: DOCUMENT, method: 'get', path: '/address-validate' },
];

/** Where dhl-express's generated schemas come from (carriers/schema-sources.ts). */
export const DHL_EXPRESS_SCHEMA_SOURCES: CarrierSchemaSources = { operations: DHL_EXPRESS_OPERATIONS, errata: DHL_EXPRESS_ERRATA };
