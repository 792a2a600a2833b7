import { firstString, isRecord } from '../decode.js';
import { CarrierError, type CarrierErrorKind } from '../carrier-error.js';
import type { CarrierAnswer, CarrierClientDeclaration, CarrierOperation, CarrierRequest } from './types.js';

/** Reads are safe to repeat; a buy or a cancel may have happened when its answer is lost. */
const WRITE_OPERATIONS: ReadonlySet<CarrierOperation> = new Set(['buy', 'cancel']);

export const isWrite = (operation: CarrierOperation) => WRITE_OPERATIONS.has(operation);

/** `Retry-After` as milliseconds: whole seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** The common error-body shapes: `{error: {code, message}}`, `{errors: [{code, message}]}`, `{message}`. */
export function readCommonError(body: unknown): { code?: string; message?: string } {
  if (!isRecord(body)) return {};
  const inner = isRecord(body.error) ? body.error : Array.isArray(body.errors) && isRecord(body.errors[0]) ? body.errors[0] : body;
  const code = firstString(inner, ['code', 'errorCode', 'type']);
  const message = firstString(inner, ['message', 'detail', 'description']);
  return { code, message };
}

/** What classifying a carrier's failure takes of its declaration. */
export type ErrorDeclaration = Pick<CarrierClientDeclaration, 'carrierCode' | 'name' | 'readError' | 'hint'>;

/** How messages name a request: `UPS void`, `acme buy`. */
export const labelOf = (declaration: Pick<CarrierClientDeclaration, 'name'>, request: Pick<CarrierRequest, 'operation' | 'name'>) =>
  `${declaration.name} ${request.name ?? request.operation}`;

/**
 * The one classification of a failed answer, as Stripe's client does it:
 * - a conflict (409), a rate limit (429) or a server fault (5xx) did nothing and may pass later:
 *   retryable, with the carrier's `Retry-After`; except a write's 502, 503 or 504, which a gateway
 *   may send after forwarding it: ambiguous (ask the carrier before trying again);
 * - any other status is the carrier's final word: definitive, in its own words.
 * The carrier's hint (its declaration) then names the reason, and may correct the kind where its
 * API's status misleads. Nothing above the client classifies again.
 */
export function classifyAnswer(declaration: ErrorDeclaration, request: CarrierRequest, answer: CarrierAnswer, nowMs: number): CarrierError {
  const { status } = answer;
  const errorBody = answer.body ?? answer.text.trim().slice(0, 200);
  const info = answer.body === undefined ? {} : declaration.readError(answer.body);
  const label = labelOf(declaration, request);
  const write = isWrite(request.operation);
  const carrierWords = info.message ?? (answer.body === undefined ? answer.text.trim().slice(0, 200) : '');
  let kind: CarrierErrorKind = 'definitive';
  let message = carrierWords || `${label}: HTTP ${status}`;
  if (status === 409 || status === 429 || status >= 500) {
    const gateway = write && (status === 502 || status === 503 || status === 504);
    kind = gateway ? 'ambiguous' : 'retryable';
    message = `${label}: HTTP ${status}${carrierWords ? `: ${carrierWords}` : ''}${gateway ? '; it may have been carried out' : ''}`;
  }
  const hint = declaration.hint?.({ status, info, body: errorBody, operation: request.operation, name: request.name ?? request.operation });
  const retryAfterMs = status === 409 || status === 429 || status >= 500 ? parseRetryAfter(answer.headers['retry-after'], nowMs) : undefined;
  return new CarrierError(hint?.kind ?? kind, hint?.message ?? message, {
    status,
    carrierCode: declaration.carrierCode,
    ...(info.code ? { carrierErrorCode: info.code } : {}),
    ...(hint?.reason ? { reason: hint.reason } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/** A 2xx answer whose body is not what the carrier promised: it did something, but we cannot tell what. */
export function unreadableAnswer(declaration: Pick<CarrierClientDeclaration, 'carrierCode' | 'name'>, request: CarrierRequest, status: number, what?: string): CarrierError {
  const label = what ? `${declaration.name} ${what}` : labelOf(declaration, request);
  // For a purchase, a label may exist: settle before buying again.
  return new CarrierError(isWrite(request.operation) ? 'ambiguous' : 'retryable', `${label}: the carrier answered ${status} with a body we cannot read`, {
    status,
    carrierCode: declaration.carrierCode,
  });
}
