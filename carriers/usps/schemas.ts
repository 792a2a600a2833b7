/**
 * Our schemas of the USPS v3 APIs, for exactly the operations and fields we use, written from the
 * published documents (payments, domestic-prices, domestic-labels, tracking; the OAuth token as the
 * getting-started guide describes it). Field names are spelled as USPS spells them.
 *
 * Requests are closed (`additionalProperties: false`) even where the document leaves an object open:
 * the point of validating what we send is that we send only what the document defines. Responses
 * stay as open as the document says, so a field USPS adds later is no error.
 *
 * The simulator and the tests check every request and answer against the schemas generated from the
 * documents themselves (`carriers/usps/schemas/`); these stay for the adapter's reading of answers
 * and for the OAuth token, which has no document.
 *
 * Split by operation: `schemas-common.ts` (shared pieces, the error body), `schemas-auth.ts` (OAuth
 * token, payment authorization), `schemas-rating.ts`, `schemas-labels.ts`, `schemas-tracking.ts`.
 * Importers use this module.
 */
export { USPS_MAIL_CLASSES, USPS_STATE_CODES, UspsErrorMessage } from './schemas-common.js';
export {
  UspsPaymentAuthorizationRequest,
  UspsPaymentAuthorizationResponse,
  UspsPaymentRole,
  UspsTokenError,
  UspsTokenRequest,
  UspsTokenResponse,
} from './schemas-auth.js';
export { UspsBaseRateOption, UspsBaseRatesQuery } from './schemas-rating.js';
export {
  USPS_IMAGE_TYPES,
  UspsCancelResponse,
  UspsImageInfo,
  UspsLabelAddress,
  UspsLabelMetadata,
  UspsLabelReprintRequest,
  UspsLabelReprintResponse,
  UspsLabelRequest,
  UspsLabelVendorResponse,
  UspsPackageDescription,
} from './schemas-labels.js';
export { UspsTrackingDetails, UspsTrackingEvent } from './schemas-tracking.js';
export { USPS_ENTRY_FACILITY_TYPES, USPS_SCAN_FORM_IMAGE_TYPES, UspsScanFormAddress, UspsScanFormRequest, UspsScanFormVendorResponse } from './schemas-scan-forms.js';
export { UspsAddressAdditionalInfo, UspsAddressQuery, UspsAddressResponse, UspsDomesticAddress } from './schemas-addresses.js';
export * from './schemas-international.js';
export { USPS_PACKAGE_LOCATIONS, USPS_PICKUP_PACKAGE_TYPES, UspsPickupAddress, UspsPickupConfirmation, UspsSchedulePickupRequest } from './schemas-pickup.js';
