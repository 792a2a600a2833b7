/**
 * The door of domain/ for workflow code and the contract: the names, vocabularies and rules a workflow
 * decides with, and nothing that validates input. Every new workflow evaluates every module of its
 * bundle afresh (the SDK's isolation), and the index would bring ipaddr.js and the views along on
 * each purchase's first workflow task.
 */
export { CODE } from './errors.js';
export type { ErrorCode } from './errors.js';
export { CARRIER_REASON, errorCodeOf } from './failures.js';
export type { FailureType } from './failures.js';
export { makeId } from './ids.js';
export type { IdPrefix } from './ids.js';
export { applyScan, eventForStatus, isTerminal, isVoidable } from './status.js';
export type { EventType, FundingSource, ShipmentStatus } from './status.js';
export { nextPollMs, SUBSCRIPTION_RENEW_MARGIN_MS, TRACKING_UNKNOWN_STOP_MS, trackingPhase } from './tracking-schedule.js';
export type { TrackingPhase } from './tracking-schedule.js';
export { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from './webhook-schedule.js';
export type { Address } from './address.js';
export type { Parcel } from './parcel.js';
export type { Customs } from './customs.js';
export type { ShipmentOptions } from './options.js';
