import { CARRIER_REASON } from '../domain/index.js';
import { CarrierError, type CancelOutcome } from './types.js';

/**
 * A failed cancel call as an outcome: the carrier's refusal because the label was scanned is an
 * answer (`refused`); anything else (faults, an unknown reference) is thrown on as it came.
 */
export function refusedCancel(error: unknown): CancelOutcome {
  if (error instanceof CarrierError && error.kind === 'definitive' && error.details.reason === CARRIER_REASON.alreadyScanned) {
    const code = error.details.carrierErrorCode;
    return { kind: 'refused', reason: 'already_scanned', message: error.message, ...(code ? { carrierErrorCode: code } : {}) };
  }
  throw error;
}
