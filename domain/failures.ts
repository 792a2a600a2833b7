import { isErrorCode, type ErrorCode } from './errors.js';

/**
 * The `type` of every ApplicationFailure our activities and workflows throw: a code of the API
 * contract (it reaches a customer as that code), or one of these internal types that the workflows
 * act on and that never reach a customer as such. Pure: workflows use it; contract/failures.ts makes
 * and reads the ApplicationFailures themselves.
 */
export const INTERNAL_FAILURES = {
  /** The request may have been carried out; ask the carrier by reference before trying again. */
  carrierAmbiguous: 'carrier_ambiguous',
  /** A retryable carrier failure; the activity's retry policy handles it. */
  carrierRetryable: 'carrier_retryable',
  /** A step found no row for its shipment: a bug or lost data, never retried, shown to operators. */
  shipmentMissing: 'shipment_missing',
  /** Input our own store can never accept (PostgreSQL refused the data itself): retrying cannot help. */
  invalidData: 'invalid_data',
  /** The card processor refused a request (a 4xx other than a decline); retrying cannot help. */
  cardProcessorRefused: 'card_processor_error',
  /** A retryable card processor failure (network, 409, 429, 5xx, unreadable answer). */
  cardProcessorRetryable: 'card_processor_retryable',
  /** A webhook delivery's event is gone from the database. */
  webhookEventMissing: 'webhook_event_missing',
  /** An attempt waits for its account's turn on this worker (retryable). */
  webhookAccountBusy: 'webhook_account_busy',
  /** A webhook delivery spent its six attempts. */
  webhookDeliveryFailed: 'webhook_delivery_failed',
} as const;

export type InternalFailure = (typeof INTERNAL_FAILURES)[keyof typeof INTERNAL_FAILURES];

/**
 * Why a carrier refused, in our words (an adapter maps the carrier's own codes onto these): the
 * workflows turn them into answers (a cancellation refused as `already_scanned` is the customer's
 * `label_already_scanned`).
 */
export const CARRIER_REASON = { alreadyScanned: 'already_scanned', notFound: 'not_found' } as const;
export type CarrierErrorReason = (typeof CARRIER_REASON)[keyof typeof CARRIER_REASON];

/** The type of an ApplicationFailure we throw: an API error code or an internal failure. */
export type FailureType = ErrorCode | InternalFailure;

/** The failure types the workflows and activities name, by what they mean. */
export const FAILURE = {
  ...INTERNAL_FAILURES,
  insufficientFunds: 'insufficient_funds',
  cardDeclined: 'card_declined',
  serviceNotAvailable: 'service_not_available',
  /** The carrier refused definitively (a 4xx other than 409/429). */
  carrierRefused: 'carrier_error',
  carrierUnavailable: 'carrier_unavailable',
  shipmentNotVoidable: 'shipment_not_voidable',
  labelAlreadyScanned: 'label_already_scanned',
  internalError: 'internal_error',
} as const satisfies Record<string, FailureType>;

/**
 * The API code a failure stands for: its own type when that is a contract code, else
 * `internal_error` (an internal type never reaches a customer).
 */
export function errorCodeOf(type: string | undefined, fallback: ErrorCode = FAILURE.internalError): ErrorCode {
  return isErrorCode(type) ? type : fallback;
}
