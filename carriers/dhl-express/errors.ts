import { CARRIER_REASON } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import { classifyAnswer, type CarrierErrorInfo, type CarrierOperation, type ErrorDeclaration, type ErrorHint, type FailedCall } from '../kit/index.js';
import type { CarrierError } from '../types.js';
import { dhlExpressDefinition } from './definition.js';

/** DHL's calls, each as the shared client knows it: whether a lost or failed answer may have had an effect. */
export const DHL_OPERATIONS = {
  rate: 'quote',
  ship: 'buy',
  track: 'track',
  reference: 'lookup',
  pickup: 'buy',
  pickup_cancel: 'cancel',
} as const satisfies Record<string, CarrierOperation>;

export type DhlOperation = keyof typeof DHL_OPERATIONS;

/**
 * DHL's RFC 7807-like error body `{instance, detail, title, message, status, additionalDetails}`:
 * the detail says what is wrong, often after a numeric code (`7008: The requested …`), which is
 * DHL's code; where none leads it, the title (the class of the problem, `Validation error`) is.
 */
export function readDhlError(body: unknown): CarrierErrorInfo {
  if (!isRecord(body)) return {};
  const detail = typeof body.detail === 'string' ? body.detail.trim() : '';
  const coded = /^(\d{1,6}):\s*(.*)$/s.exec(detail);
  const extra = Array.isArray(body.additionalDetails) ? body.additionalDetails.filter((d): d is string => typeof d === 'string') : [];
  const text = [coded ? coded[2] : detail, ...extra].filter(Boolean).join('; ');
  const title = typeof body.title === 'string' && body.title ? body.title : undefined;
  const fallback = title ?? (typeof body.message === 'string' && body.message ? body.message : undefined);
  const code = coded ? coded[1] : title;
  return { ...(code ? { code } : {}), ...(text || fallback ? { message: text || fallback } : {}) };
}

/**
 * How a failed DHL call ends. The shared client's rules decide by status (Stripe's, as the style
 * guide has them); DHL's hint adds what its status alone does not say:
 *
 * | status | kind | why |
 * |---|---|---|
 * | 429, 409 | retryable | a quota or a conflict: nothing was done; `Retry-After` is honoured |
 * | 500 (DHL's "999: Process failure"), other 5xx | retryable | DHL's process failed before committing |
 * | 502, 503, 504 to a shipment, pickup or its cancel | ambiguous | a gateway may have forwarded it |
 * | 401, 403 | definitive | the platform's API key or secret is refused: named so, never its value |
 * | 404 | definitive, `not_found` | no such waybill in tracking (not scanned yet), no such pickup |
 * | 400, 422, other 4xx | definitive | DHL's validation or business rule, in its words with its code |
 *
 * DHL bills only the shipments it scans, so even an ambiguous purchase costs nothing twice: it is
 * bought again, and only the label handed out can be scanned.
 */
export function dhlErrorHint(failure: FailedCall): ErrorHint | undefined {
  if (failure.status === 404) return { reason: CARRIER_REASON.notFound };
  if (failure.status === 401 || failure.status === 403) {
    return { message: `DHL Express refused the API credentials (HTTP ${failure.status}${failure.info.message ? `: ${failure.info.message}` : ''})` };
  }
  return undefined;
}

/** How DHL's failures are read and classified: the part of its client's declaration the classification takes. */
export const DHL_ERRORS: ErrorDeclaration = { carrierCode: dhlExpressDefinition.code, name: dhlExpressDefinition.name, readError: readDhlError, hint: dhlErrorHint };

/** A DHL answer's failure as its client classifies it (canned-payload tests read DHL's answers through it). */
export function classifyDhlAnswer(status: number, body: unknown, operation: DhlOperation, headers: Record<string, string> = {}): CarrierError {
  const request = { operation: DHL_OPERATIONS[operation], name: operation, method: 'POST' as const, path: '/' };
  return classifyAnswer(DHL_ERRORS, request, { status, headers, body, text: body === undefined ? '' : JSON.stringify(body) }, Date.now());
}
