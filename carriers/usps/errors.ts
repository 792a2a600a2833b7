import { CARRIER_REASON } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { classifyAnswer, type ErrorDeclaration, type ErrorHint, type FailedCall } from '../kit/index.js';
import type { CarrierError } from '../types.js';
import type { CancelOutcome } from './mapping-shipment.js';

/** USPS's own code and words for a failure, from either error body it sends. */
export interface UspsErrorInfo {
  code?: string;
  message?: string;
}

/**
 * Reads `ErrorMessage` (`{error: {code, message, errors: [{code, title, detail}]}}`), whose most
 * precise words are in `errors[].detail` (the cancel refusals say why only there), and the token
 * endpoint's RFC 6749 body (`{error: "invalid_client", error_description}`).
 */
export function readUspsError(body: unknown): UspsErrorInfo {
  if (!isRecord(body)) return {};
  if (typeof body.error === 'string') {
    return { code: body.error, ...(typeof body.error_description === 'string' ? { message: body.error_description } : { message: body.error }) };
  }
  if (!isRecord(body.error)) return {};
  const top = body.error;
  const details = (Array.isArray(top.errors) ? top.errors : []).filter(isRecord);
  const first = details[0];
  const code = (first && typeof first.code === 'string' && first.code) || (typeof top.code === 'string' ? top.code : undefined);
  const texts = details.map((e) => (typeof e.detail === 'string' && e.detail) || (typeof e.title === 'string' && e.title) || '').filter(Boolean);
  const message = texts.length ? texts.join('; ') : typeof top.message === 'string' ? top.message : undefined;
  return { ...(code ? { code } : {}), ...(message ? { message } : {}) };
}

/** Whether a USPS text says the label, order or tracking number does not exist. */
export function saysNotFound(text: string | undefined): boolean {
  return text !== undefined && /\bnot\s+(?:be\s+)?found\b|\bno\s+record\b|does\s+not\s+exist/i.test(text);
}

/**
 * USPS's word on a failed answer, beside what its status says (the shared client's rules, as
 * Stripe's: a rate limit, a conflict or a server fault did nothing and may pass later, a purchase's
 * or a cancellation's gateway failure is ambiguous, any other refusal is USPS's final word): a 404,
 * or a refusal whose words say so, is `not_found`. A 401 reaches here only after the client renewed
 * its token once: final too.
 */
export function uspsErrorHint(failure: FailedCall): ErrorHint | undefined {
  const refusal = failure.status >= 400 && failure.status < 500 && failure.status !== 409 && failure.status !== 429;
  if (refusal && (failure.status === 404 || saysNotFound(failure.info.message))) return { reason: CARRIER_REASON.notFound };
  return undefined;
}

/** How USPS's failures are read and classified: the part of its client's declaration the classification takes. */
export const USPS_ERRORS: ErrorDeclaration = { carrierCode: 'usps', name: 'USPS', readError: readUspsError, hint: uspsErrorHint };

/** A USPS answer's failure as its client classifies it (canned-payload tests read USPS's answers through it). */
export function classifyUspsAnswer(status: number, body: unknown, write: boolean): CarrierError {
  const request = { operation: write ? ('buy' as const) : ('lookup' as const), method: 'POST' as const, path: '/' };
  return classifyAnswer(USPS_ERRORS, request, { status, headers: {}, body, text: body === undefined ? '' : JSON.stringify(body) }, Date.now());
}

/**
 * How USPS's cancel refusals read. The only reason is in the text of a 400 (`errors[].detail`), so
 * these patterns are the whole classification; the document's examples are the first three lines.
 *
 * | USPS text (document example or pattern)                           | outcome                            |
 * |-------------------------------------------------------------------|------------------------------------|
 * | "A refund request for this order has already been submitted today" | refund_requested (ours stands)     |
 * | "A refund request for this order cannot be submitted"              | refused, already_scanned           |
 * | "Order not found"                                                   | not a refusal: error, not_found    |
 * | mentions scanned / used / accepted / in transit / delivered        | refused, already_scanned           |
 * | "cannot be canceled", "not eligible", "expired"                     | refused, not_cancellable           |
 *
 * A refund "cannot be submitted" for a label we bought through this API, unused and within the
 * refund window, only once USPS has scanned it: USPS refunds unused labels alone. A request "already
 * submitted today" is our own earlier request, whose answer was lost; it stands, so the outcome is
 * the one that request had.
 */
export const USPS_CANCEL_REFUSALS: ReadonlyArray<{ pattern: RegExp; outcome: 'refund_requested' | 'already_scanned' | 'not_cancellable' }> = [
  { pattern: /already\s+been\s+submitted/i, outcome: 'refund_requested' },
  { pattern: /refund\s+request\s+for\s+this\s+order\s+cannot\s+be\s+submitted/i, outcome: 'already_scanned' },
  { pattern: /scanned|\bused\b|accepted|in\s+transit|delivered|in\s+the\s+mailstream/i, outcome: 'already_scanned' },
  { pattern: /cannot\s+be\s+cancel+ed|not\s+(?:be\s+)?cancel+able|not\s+eligible|expired|no\s+longer/i, outcome: 'not_cancellable' },
];

/**
 * A cancel's 400 as an outcome, or null when it is not a refusal of the cancellation (a label USPS
 * does not know, a malformed request): those are errors for `classifyUspsError`.
 */
export function parseUspsCancelRefusal(status: number, body: unknown): CancelOutcome | null {
  if (status !== 400) return null;
  const { message } = readUspsError(body);
  if (message === undefined || saysNotFound(message)) return null;
  const match = USPS_CANCEL_REFUSALS.find((r) => r.pattern.test(message));
  if (!match) return null;
  if (match.outcome === 'refund_requested') return { kind: 'refund_requested' };
  return { kind: 'refused', reason: match.outcome, message };
}

/** Whether a labels answer refuses the payment authorization token itself (it lasts eight hours). */
export function rejectsPaymentToken(answer: { status: number; text: string }): boolean {
  if (answer.status !== 400 && answer.status !== 401 && answer.status !== 403) return false;
  const text = answer.text;
  return /payment[\s-]*authori[sz]ation/i.test(text) && /expired|invalid/i.test(text);
}
