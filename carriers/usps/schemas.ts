/**
 * Our schemas of the USPS v3 APIs, for exactly the operations and fields we use, written from the
 * published documents (payments, domestic-prices, domestic-labels, tracking; the OAuth token as the
 * getting-started guide describes it). Field names are spelled as USPS spells them.
 *
 * Requests are closed (`additionalProperties: false`) even where the document leaves an object open:
 * the point of validating what we send is that we send only what the document defines. Responses
 * stay as open as the document says, so a field USPS adds later is no error.
 *
 * Split by operation: `schemas-common.ts` (shared pieces, the error body), `schemas-auth.ts` (OAuth
 * token, payment authorization), `schemas-rating.ts`, `schemas-labels.ts`, `schemas-tracking.ts`.
 * Importers use this module.
 */
import type { TSchema } from '@sinclair/typebox';
import { UspsPaymentAuthorizationRequest, UspsPaymentAuthorizationResponse, UspsTokenError, UspsTokenRequest, UspsTokenResponse } from './schemas-auth.js';
import { UspsErrorMessage } from './schemas-common.js';
import {
  UspsCancelResponse,
  UspsLabelHeaders,
  UspsLabelReprintRequest,
  UspsLabelReprintResponse,
  UspsLabelRequest,
  UspsLabelVendorResponse,
} from './schemas-labels.js';
import { UspsBaseRateOption, UspsBaseRatesQuery } from './schemas-rating.js';
import { UspsTrackingDetails } from './schemas-tracking.js';
import { UspsScanFormRequest, UspsScanFormVendorResponse } from './schemas-scan-forms.js';
import { UspsPickupConfirmation, UspsSchedulePickupRequest } from './schemas-pickup.js';
import { UspsAddressQuery, UspsAddressResponse } from './schemas-addresses.js';
import {
  UspsExtraServiceRateDetails,
  UspsExtraServiceRateQuery,
  UspsIntlBaseRatesQuery,
  UspsIntlExtraServiceRateDetails,
  UspsIntlExtraServiceRateQuery,
  UspsIntlLabelReprintRequest,
  UspsIntlLabelReprintResponse,
  UspsIntlLabelRequest,
  UspsIntlLabelVendorResponse,
  UspsReturnLabelRequest,
  UspsReturnLabelVendorResponse,
} from './schemas-international.js';

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
  UspsLabelHeaders,
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

/** Every schema by name, for a validator that compiles them once (tests, the simulator). */
export const USPS_SCHEMAS: Record<string, TSchema> = {
  UspsErrorMessage,
  UspsTokenRequest,
  UspsTokenResponse,
  UspsTokenError,
  UspsPaymentAuthorizationRequest,
  UspsPaymentAuthorizationResponse,
  UspsBaseRatesQuery,
  UspsBaseRateOption,
  UspsLabelRequest,
  UspsLabelHeaders,
  UspsLabelVendorResponse,
  UspsLabelReprintRequest,
  UspsLabelReprintResponse,
  UspsCancelResponse,
  UspsTrackingDetails,
  UspsScanFormRequest,
  UspsScanFormVendorResponse,
  UspsSchedulePickupRequest,
  UspsPickupConfirmation,
  UspsAddressQuery,
  UspsAddressResponse,
  UspsIntlBaseRatesQuery,
  UspsExtraServiceRateQuery,
  UspsExtraServiceRateDetails,
  UspsIntlExtraServiceRateQuery,
  UspsIntlExtraServiceRateDetails,
  UspsIntlLabelRequest,
  UspsIntlLabelVendorResponse,
  UspsIntlLabelReprintRequest,
  UspsIntlLabelReprintResponse,
  UspsReturnLabelRequest,
  UspsReturnLabelVendorResponse,
};
