import type { ErrorCode } from './errors.js';

/**
 * What a customer reads in a failed shipment's `failure.message` (and the problem's `detail`). A
 * carrier's or card processor's own words (raw response bodies, their internal codes) never reach a
 * customer: operators read them in the workflow's history and current details instead.
 */
const CUSTOMER_MESSAGES: Partial<Record<ErrorCode, string>> = {
  carrier_error: 'The carrier refused the purchase; nothing was bought or charged.',
  carrier_unavailable: 'The carrier could not be reached in time; nothing was bought or charged. Try again later.',
  card_declined: 'The card was declined; nothing was bought or charged.',
};

/** Codes whose message we write ourselves (the ledger's, the rate card's): kept as they are. */
const OWN_MESSAGES = new Set<ErrorCode>(['insufficient_funds', 'service_not_available']);

export const GENERIC_FAILURE_MESSAGE = 'The purchase failed; nothing was bought or charged.';

export function customerFailureMessage(code: ErrorCode, message: string): string {
  if (OWN_MESSAGES.has(code)) return message;
  return CUSTOMER_MESSAGES[code] ?? GENERIC_FAILURE_MESSAGE;
}

/** A void the carrier refused: the detail of the 502, without the carrier's text. */
export const VOID_REFUSED_MESSAGE = 'The carrier refused the cancellation; the label stays bought and charged.';
