import { CARRIER_REASON } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { CarrierErrorKind, CarrierErrorReason } from '../types.js';

/** What a UPS call does; decides whether a lost or gateway-failed answer may have had an effect. */
export type UpsOperation = 'token' | 'rate' | 'ship' | 'void' | 'recover' | 'track' | 'reference' | 'pickup' | 'pickup_cancel' | 'pickup_pending' | 'address';

const WRITES: ReadonlySet<UpsOperation> = new Set(['ship', 'void', 'pickup', 'pickup_cancel']);

export interface UpsErrorInfo {
  code?: string;
  message?: string;
}

export interface UpsErrorClass {
  kind: CarrierErrorKind;
  /** UPS's own code and message, kept as sent. */
  carrierErrorCode?: string;
  message: string;
  reason?: CarrierErrorReason;
}

/** UPS's error body: `{ response: { errors: [{ code, message }] } }` (every API alike). */
export function readUpsError(body: unknown): UpsErrorInfo {
  const errors = isRecord(body) && isRecord(body.response) && Array.isArray(body.response.errors) ? body.response.errors : [];
  const first = errors.find(isRecord);
  if (!first) return {};
  const code = typeof first.code === 'string' && first.code !== '' ? first.code : undefined;
  const message = typeof first.message === 'string' && first.message !== '' ? first.message : undefined;
  return { code, message };
}

/**
 * UPS documents no error code for voiding a label it has scanned, so the refusal is known by its
 * words: the package "has been picked up", "is in transit", "was delivered" or "has been scanned".
 */
const ALREADY_SCANNED = /\b(picked up|in transit|delivered|(origin )?scan(ned)?|tendered)\b/i;

export function isAlreadyScannedMessage(message: string | undefined): boolean {
  return message !== undefined && ALREADY_SCANNED.test(message);
}

/**
 * How a failed UPS call ends, from its HTTP status and UPS's error body (the style guide's rule,
 * as Stripe's client does it):
 * - 429 (UPS sends no `Retry-After`; the client backs off on its own), 409 and 5xx did nothing: retryable;
 *   except a write's 502, 503 or 504, which a gateway may send after forwarding it: ambiguous;
 * - 401 is definitive here (the client refreshes its token once before it gets this far);
 * - 404 is `not_found`; a void refused in words of a scan is `already_scanned`; any other 4xx is definitive.
 */
export function classifyUpsError(status: number, info: UpsErrorInfo, operation: UpsOperation): UpsErrorClass {
  const carrier = info.code === undefined ? {} : { carrierErrorCode: info.code };
  const message = info.message ?? `UPS answered HTTP ${status}`;
  if (status === 409 || status === 429 || status >= 500) {
    const kind = WRITES.has(operation) && (status === 502 || status === 503 || status === 504) ? 'ambiguous' : 'retryable';
    return { kind, message, ...carrier };
  }
  if (status === 404) return { kind: 'definitive', message, reason: CARRIER_REASON.notFound, ...carrier };
  if (operation === 'void' && isAlreadyScannedMessage(info.message)) return { kind: 'definitive', message, reason: CARRIER_REASON.alreadyScanned, ...carrier };
  return { kind: 'definitive', message, ...carrier };
}
