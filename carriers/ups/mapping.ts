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
export { classifyUpsError, readUpsError, isAlreadyScannedMessage, type UpsErrorClass, type UpsErrorInfo, type UpsOperation } from './errors.js';

import { CARRIER_REASON } from '../../domain/index.js';
import { classifyUpsError, readUpsError } from './errors.js';
import type { CancelOutcome } from './shipping.js';

/** A refused void answer as a cancellation outcome; undefined when the failure is not a refusal (retry it). */
export function cancelOutcomeFromError(status: number, body: unknown): CancelOutcome | undefined {
  const info = readUpsError(body);
  const c = classifyUpsError(status, info, 'void');
  if (c.kind !== 'definitive' || status === 401 || status === 403) return undefined;
  return { kind: 'refused', reason: c.reason === CARRIER_REASON.alreadyScanned ? 'already_scanned' : 'not_cancellable', message: c.message };
}
