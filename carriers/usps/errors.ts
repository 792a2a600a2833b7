import { CARRIER_REASON } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { CarrierErrorKind } from '../types.js';
import type { CancelOutcome } from './labels.js';

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

export interface UspsErrorClassification {
  kind: CarrierErrorKind;
  /** USPS's own code, as sent. */
  carrierErrorCode?: string;
  message: string;
  /** `not_found` when USPS says it has no such label or tracking number. */
  reason?: typeof CARRIER_REASON.notFound;
}

/** Whether a USPS text says the label, order or tracking number does not exist. */
export function saysNotFound(text: string | undefined): boolean {
  return text !== undefined && /\bnot\s+(?:be\s+)?found\b|\bno\s+record\b|does\s+not\s+exist/i.test(text);
}

/**
 * A failed answer's class. As Stripe's client does: a rate limit (429, honour `Retry-After`), a
 * conflict (409) or a server fault (5xx) did nothing and may pass later; except that a 502, 503 or
 * 504 to a purchase or a cancellation may come from a gateway after USPS acted, so it is ambiguous
 * (settle by idempotency key before trying again). Any other 4xx is USPS's final word. A 401 is
 * final too: the client refreshes its token once before it gets here.
 */
export function classifyUspsError(status: number, body: unknown, write: boolean): UspsErrorClassification {
  const info = readUspsError(body);
  const message = info.message ? `USPS HTTP ${status}: ${info.message}` : `USPS HTTP ${status}`;
  const base = info.code ? { carrierErrorCode: info.code, message } : { message };
  if (status === 409 || status === 429 || status >= 500) {
    const gateway = status === 502 || status === 503 || status === 504;
    return { ...base, kind: write && gateway ? 'ambiguous' : 'retryable' };
  }
  if (status === 404 || saysNotFound(info.message)) return { ...base, kind: 'definitive', reason: CARRIER_REASON.notFound };
  return { ...base, kind: 'definitive' };
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
