import type { Erratum } from './errata.js';
import type { OperationSpec } from './operation.js';
import { DHL_EXPRESS_ERRATA } from './errata/dhl-express.js';
import { FEDEX_ERRATA } from './errata/fedex.js';
import { UPS_ERRATA } from './errata/ups.js';
import { USPS_ERRATA } from './errata/usps.js';

/** A carrier whose schemas we generate: its folder under the carrier documents and under `carriers/`. */
export interface CarrierSpec {
  readonly carrier: string;
  readonly operations: readonly OperationSpec[];
  readonly errata: readonly Erratum[];
}

/** FedEx: its OAuth token has no document (the carrier-specs README describes it), so no schema. */
const FEDEX: CarrierSpec = {
  carrier: 'fedex',
  errata: FEDEX_ERRATA,
  operations: [
    { name: 'rates-quotes', document: 'fedex/rate-api.json', method: 'post', path: '/rate/v1/rates/quotes' },
    { name: 'shipments', document: 'fedex/ship-api.json', method: 'post', path: '/ship/v1/shipments' },
    { name: 'shipments-cancel', document: 'fedex/ship-api.json', method: 'put', path: '/ship/v1/shipments/cancel' },
    { name: 'trackingnumbers', document: 'fedex/track.json', method: 'post', path: '/track/v1/trackingnumbers' },
    { name: 'referencenumbers', document: 'fedex/track.json', method: 'post', path: '/track/v1/referencenumbers' },
    { name: 'pickups', document: 'fedex/pickup-api.json', method: 'post', path: '/pickup/v1/pickups' },
    { name: 'pickups-cancel', document: 'fedex/pickup-api.json', method: 'put', path: '/pickup/v1/pickups/cancel' },
  ],
};

const DHL_DOCUMENT = 'dhl-express/mydhl-api-3.1.1.yaml';

const DHL_EXPRESS: CarrierSpec = {
  carrier: 'dhl-express',
  errata: DHL_EXPRESS_ERRATA,
  operations: [
    { name: 'rates', document: DHL_DOCUMENT, method: 'get', path: '/rates' },
    { name: 'rates-many', document: DHL_DOCUMENT, method: 'post', path: '/rates' },
    { name: 'shipments', document: DHL_DOCUMENT, method: 'post', path: '/shipments' },
    { name: 'shipments-tracking', document: DHL_DOCUMENT, method: 'get', path: '/shipments/{shipmentTrackingNumber}/tracking' },
    { name: 'tracking', document: DHL_DOCUMENT, method: 'get', path: '/tracking' },
    { name: 'pickups', document: DHL_DOCUMENT, method: 'post', path: '/pickups' },
    { name: 'pickups-cancel', document: DHL_DOCUMENT, method: 'delete', path: '/pickups/{dispatchConfirmationNumber}' },
    { name: 'address-validate', document: DHL_DOCUMENT, method: 'get', path: '/address-validate' },
  ],
};

const UPS: CarrierSpec = { carrier: 'ups', errata: UPS_ERRATA, operations: [] };
const USPS: CarrierSpec = { carrier: 'usps', errata: USPS_ERRATA, operations: [] };

/** Every real carrier built from its documents, in the order the generator writes them. */
export const CARRIERS: readonly CarrierSpec[] = [UPS, USPS, FEDEX, DHL_EXPRESS];
