/**
 * The UPS mapping: pure functions from our types to UPS's document-shaped requests and from UPS's
 * answers to ours. No I/O here; client.ts does the HTTP.
 */
export { UPS_SERVICES, upsCarrierServiceCode, ourUpsServiceCode, type UpsServiceCode } from './services.js';
export { upsAddressProblems, upsParcelProblems, upsPackageMeasures, upsPostalCode, upsUnits, addressState, type UpsProblem } from './address.js';
export { buildRateRequest, parseRateResponse, upsAddress, upsMoney, UPS_RATING_VERSION, type RatedService, type UpsRateInput } from './rating.js';
export {
  buildShipRequest,
  parseShipResponse,
  buildVoidRequest,
  parseVoidResponse,
  buildLabelRecoveryRequest,
  parseLabelRecoveryResponse,
  UPS_SHIPPING_VERSION,
  type BoughtLabel,
  type CancelOutcome,
  type UpsPurchaseInput,
  type UpsLabelRequestFormat,
} from './shipping.js';
export { parseTrackResponse, parseReferenceTrackResponse, UPS_STATUS_TYPES, type UpsScan, type UpsScanStatus, type UpsFoundPackage } from './tracking.js';
export { buildUpsAddressValidationRequest, parseUpsAddressValidationResponse, UPS_ADDRESS_VALIDATION_PATH } from './address-validation.js';
export { classifyUpsAnswer, readUpsError, isAlreadyScannedMessage, upsErrorHint, UPS_ERRORS, UPS_OPERATIONS, type UpsOperation } from './errors.js';

import { CARRIER_REASON } from '../../domain/index.js';
import type { CarrierError } from '../types.js';
import type { CancelOutcome } from './shipping.js';

/**
 * A void's failure, as the client classified it, as a cancellation outcome: a refusal is an answer;
 * undefined for a fault to retry, or a refusal of our credentials rather than of the void.
 */
export function cancelOutcomeFromError(error: CarrierError): CancelOutcome | undefined {
  const status = error.details.status;
  if (error.kind !== 'definitive' || status === undefined || status === 401 || status === 403) return undefined;
  return { kind: 'refused', reason: error.details.reason === CARRIER_REASON.alreadyScanned ? 'already_scanned' : 'not_cancellable', message: error.message };
}
