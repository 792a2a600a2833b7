import type { Erratum } from '../errata.js';

const DOCUMENT = 'dhl-express/mydhl-api-3.1.1.yaml';
const CREATE_SHIPMENT = '/components/schemas/supermodelIoLogisticsExpressCreateShipmentRequest/properties/content/properties/exportDeclaration/properties';
const DUPLICATE_CHA = 'The customs document type codes list "CHA" twice (items 6 and 49); JSON Schema requires an enum\'s items to be unique, so no validator accepts the schema until one goes.';

/** MyDHL API 3.1.1's contradictions, each corrected where our operations read it. */
export const DHL_EXPRESS_ERRATA: readonly Erratum[] = [
  { document: DOCUMENT, pointer: `${CREATE_SHIPMENT}/customsDocuments/items/properties/typeCode/enum/49`, was: 'CHA', value: undefined, reason: DUPLICATE_CHA },
  {
    document: DOCUMENT,
    pointer: `${CREATE_SHIPMENT}/lineItems/items/properties/customsDocuments/items/properties/typeCode/enum/49`,
    was: 'CHA',
    value: undefined,
    reason: DUPLICATE_CHA,
  },
];
