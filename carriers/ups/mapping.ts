/**
 * The UPS mapping's door: pure functions from our types to UPS's document-shaped requests and from
 * UPS's answers to ours, one file per topic (`mapping-*.ts`). No I/O here; `client.ts` does the
 * HTTP. Beside them: `services.ts`, the service table; `errors.ts`, how UPS's failures read.
 */
export { UPS_SERVICES, upsCarrierServiceCode, ourUpsServiceCode, type UpsServiceCode } from './services.js';
export { upsAddressProblems, upsParcelProblems, upsPackageMeasures, upsPostalCode, upsUnits, addressState, type UpsProblem } from './mapping-address.js';
export { buildRateRequest, parseRateResponse, upsAddress, upsMoney, UPS_RATING_VERSION, type RatedService, type UpsRateInput } from './mapping-rates.js';
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
  cancelOutcomeFromError,
} from './mapping-shipment.js';
export { parseTrackResponse, parseReferenceTrackResponse, UPS_STATUS_TYPES, type UpsScan, type UpsScanStatus, type UpsFoundPackage } from './mapping-tracking.js';
export { buildUpsAddressValidationRequest, parseUpsAddressValidationResponse, UPS_ADDRESS_VALIDATION_PATH } from './mapping-address-check.js';
export * from './mapping-international.js';
export * from './mapping-options.js';
export * from './mapping-pickup.js';
export { classifyUpsAnswer, readUpsError, isAlreadyScannedMessage, upsErrorHint, UPS_ERRORS, UPS_OPERATIONS, type UpsOperation } from './errors.js';
