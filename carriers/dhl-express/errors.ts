import { CARRIER_REASON } from '../../domain/index.js';
import { isRecord } from '../decode.js';
import type { CarrierErrorKind, CarrierErrorReason } from '../types.js';

/** What a DHL call does: whether a lost or failed answer may have had an effect. */
export type DhlOperation = 'rate' | 'ship' | 'track' | 'reference' | 'pickup' | 'pickup_cancel';

const WRITES: ReadonlySet<DhlOperation> = new Set(['ship', 'pickup', 'pickup_cancel']);

export interface DhlErrorInfo {
  /** DHL's numeric code where its `detail` starts with one (`7008: The requested …`), else its `title`. */
  code?: string;
  message?: string;
}

export interface DhlErrorClass {
  kind: CarrierErrorKind;
  message: string;
  carrierErrorCode?: string;
  reason?: CarrierErrorReason;
}

/**
 * DHL's RFC 7807-like error body `{instance, detail, title, message, status, additionalDetails}`:
 * the detail says what is wrong (often after a numeric code), the title and message only the class.
 */
export function readDhlError(body: unknown): DhlErrorInfo {
  if (!isRecord(body)) return {};
  const detail = typeof body.detail === 'string' ? body.detail.trim() : '';
  const coded = /^(\d{1,6}):\s*(.*)$/s.exec(detail);
  const extra = Array.isArray(body.additionalDetails) ? body.additionalDetails.filter((d): d is string => typeof d === 'string') : [];
  const text = [coded ? coded[2] : detail, ...extra].filter(Boolean).join('; ');
  const title = typeof body.title === 'string' && body.title ? body.title : undefined;
  const fallback = title ?? (typeof body.message === 'string' && body.message ? body.message : undefined);
  // The numeric code where DHL gives one; else its title, the class of the problem ("Validation error").
  const code = coded ? coded[1] : title;
  return { ...(code ? { code } : {}), ...(text || fallback ? { message: text || fallback } : {}) };
}

/**
 * How a failed DHL call ends, by its HTTP status (the style guide's rule, as Stripe's client does it):
 *
 * | status | kind | why |
 * |---|---|---|
 * | 429, 409 | retryable | a quota or a conflict: nothing was done; `Retry-After` is honoured |
 * | 500 (DHL's "999: Process failure") and other 5xx of a read | retryable | nothing to undo |
 * | 502, 503, 504 of a write | ambiguous | a gateway may have forwarded it: the shipment or pickup may exist |
 * | 500, 501 of a write | retryable | DHL's own process failed before committing (it names the process id) |
 * | 401, 403 | definitive | the platform's credentials are refused: retrying cannot help |
 * | 404 | definitive, not_found | no such shipment in tracking, no such pickup |
 * | 400, 422, other 4xx | definitive | DHL's validation or business rule (`7008: service not available`): its words kept |
 *
 * A shipment that DHL made but never scans is never billed, so even an ambiguous purchase costs
 * nothing twice: the purchase is bought again and only the label handed out can be scanned.
 */
export function classifyDhlError(status: number, info: DhlErrorInfo, operation: DhlOperation): DhlErrorClass {
  const carrier = info.code === undefined ? {} : { carrierErrorCode: info.code };
  const message = info.message ?? `DHL Express answered HTTP ${status}`;
  if (status === 409 || status === 429 || status >= 500) {
    const kind = WRITES.has(operation) && (status === 502 || status === 503 || status === 504) ? 'ambiguous' : 'retryable';
    return { kind, message, ...carrier };
  }
  if (status === 404) return { kind: 'definitive', message, reason: CARRIER_REASON.notFound, ...carrier };
  return { kind: 'definitive', message, ...carrier };
}
