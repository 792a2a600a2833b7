/**
 * The domain room's door: pure types and rules (money, ids, addresses and parcels, statuses and their
 * transitions, pricing, the error table and the failure vocabulary, webhooks' rules). No I/O, no
 * configuration, no Temporal SDK. Workflow code and the contract use the lighter door, workflow.ts.
 */
export { canonicalAmount, formatAmount, parseAmount, priceToJson, priceWithVat } from './money.js';
export type { Minor, Price } from './money.js';
export { parseIsoInstant } from './iso-time.js';
export { firstIdAt, idRandomPart, isId, makeId } from './ids.js';
export type { IdPrefix } from './ids.js';
export {
  ApiError,
  CODE,
  customerFailureMessage,
  ERROR_TABLE,
  ERRORS,
  GENERIC_FAILURE_MESSAGE,
  isErrorCode,
  VOID_REFUSED_MESSAGE,
} from './errors.js';
export type { ErrorCode, FieldError } from './errors.js';
export { CARRIER_REASON, errorCodeOf } from './failures.js';
export type { CarrierErrorReason } from './failures.js';
export { ADDRESS_FIELDS, MAX_ADDRESS_FIELD, MAX_PHONE, normalizeAddress, OPTIONAL_FINGERPRINT_FIELDS, PHONE_PATTERN } from './address.js';
export {
  CONTENTS_TYPES,
  crossesBorder,
  CUSTOMS_LIMITS,
  customsProblems,
  INCOTERMS,
  NON_DELIVERY,
  normalizeCustoms,
  TAX_ID_OWNERS,
  TAX_ID_TYPES,
} from './customs.js';
export type { ContentsType, Customs, CustomsInput, CustomsItem, TaxId } from './customs.js';
export { optionProblems, optionsSurcharge, requestedOptions, SIGNATURE_OPTIONS, unsupportedOption } from './options.js';
export type { OptionPrices, ShipmentOptions } from './options.js';
export { STATE_REQUIRED } from './subdivisions.js';
export type { Address } from './address.js';
export { COUNTRY_CODES, isCountryCode } from './countries.js';
export { fitsBounds, PARCEL_LIMITS } from './parcel.js';
export type { Parcel, ServiceBounds } from './parcel.js';
export {
  applyScan,
  canTransition,
  EVENT_TYPES,
  eventForStatus,
  FUNDING_SOURCES,
  isTerminal,
  isVoidable,
  SCAN_STATUSES,
  SHIPMENT_STATUSES,
  TRACKING_STATUSES,
} from './status.js';
export type { EventType, FundingSource, ScanStatus, ShipmentStatus } from './status.js';
export { nextPollMs, SUBSCRIPTION_RENEW_MARGIN_MS, TRACKING_CADENCE, TRACKING_UNKNOWN_STOP_MS, trackingPhase } from './tracking-schedule.js';
export type { PhaseCadence, PollScheduleInput, TrackingPhase } from './tracking-schedule.js';
export { isScope, SCOPES } from './scopes.js';
export type { Scope } from './scopes.js';
export { ipAllowed, isPublicAddress, isValidCidr } from './cidr.js';
export { hasLabel, LABEL_FORMAT_LIST, LABELLED_STATUSES, shipmentToJson } from './shipment-view.js';
export { BATCH_MAX_ITEMS, BATCH_STATUSES, batchToJson, countItems } from './batch-view.js';
export type { BatchCounts, BatchJson, BatchRecord } from './batch-view.js';
export { priceService } from './pricing.js';
export type { PricedServiceSource } from './pricing.js';
export { availableOf, balanceToJson } from './balance-view.js';
export { checkWebhookUrl, eventPayload, WEBHOOK_DELIVERY_FAILED, WEBHOOK_HEADERS, WEBHOOK_TIMEOUT_MS } from './webhooks.js';
export { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from './webhook-schedule.js';
export { carrierSettingVariable } from './carrier-settings.js';
export type { CarrierSetting, CarrierSettings } from './carrier-settings.js';
export { formatDuration, reviewDueAt, reviewStatus, workingMsBetween } from './review.js';
