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

/** UPS: the current versions only (the documents also keep deprecated paths of the same operations). */
const UPS: CarrierSpec = {
  carrier: 'ups',
  errata: UPS_ERRATA,
  operations: [
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
  ],
};

/** USPS: each API under its own prefix (`/labels/v3`, `/prices/v3`…); the OAuth token has no document of its own. */
const USPS: CarrierSpec = {
  carrier: 'usps',
  errata: USPS_ERRATA,
  operations: [
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
  ],
};

/** Every real carrier built from its documents, in the order the generator writes them. */
export const CARRIERS: readonly CarrierSpec[] = [UPS, USPS, FEDEX, DHL_EXPRESS];
