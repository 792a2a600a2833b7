import type { CarrierErrorReason } from '../domain/index.js';

/**
 * How a carrier call failed:
 * - `retryable`: nothing happened at the carrier (refused connection, 409, 429, 5xx); try again.
 * - `definitive`: the carrier said no (other 4xx); retrying cannot help.
 * - `ambiguous`: the request may have been carried out (time-out or connection lost after sending);
 *   ask the carrier by reference before trying again.
 */
export type CarrierErrorKind = 'retryable' | 'definitive' | 'ambiguous';

/**
 * Why a definitive refusal happened, where the adapter can tell, so callers can answer precisely:
 * `already_scanned` (a cancel refused because the carrier has scanned the label, spec §3 rule 2),
 * `not_found` (no purchase or tracking number of that kind at the carrier).
 */
export type { CarrierErrorReason };

export class CarrierError extends Error {
  constructor(
    readonly kind: CarrierErrorKind,
    message: string,
    readonly details: {
      status?: number;
      retryAfterMs?: number;
      carrierCode?: string;
      /** The carrier's own machine-readable error code, as it sent it. */
      carrierErrorCode?: string;
      reason?: CarrierErrorReason;
    } = {},
  ) {
    super(message);
    this.name = 'CarrierError';
  }
}
