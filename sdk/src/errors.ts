import type { components } from './generated/openapi.js';

export type Problem = components['schemas']['Problem'];
/** Every error code the API can answer (contract: Errors). */
export type ErrorCode = Problem['code'];

/**
 * An error the API answered (problem+json), typed by its stable `code`:
 *
 *     catch (err) { if (isApiError(err, 'insufficient_funds')) … }
 */
export class ParcelShippingError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'ParcelShippingError';
  readonly code: C;
  /** The HTTP status; absent when the error is a purchase that failed after a 202 (read by polling). */
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly detail: string;
  /** Each invalid field, for `validation_failed`. */
  readonly errors: { path: string; message: string }[];
  /** The failed shipment, still listed as failed (purchase and void failures). */
  readonly shipmentId: string | undefined;
  /** Seconds to wait, from Retry-After (429, 409 idempotency_key_in_use, 503). */
  readonly retryAfterSeconds: number | undefined;
  readonly problem: Partial<Problem>;

  constructor(problem: Partial<Problem> & { code: C }, status?: number, retryAfterSeconds?: number) {
    super(`${problem.code}: ${problem.detail ?? problem.title ?? 'request failed'}`);
    this.code = problem.code;
    this.status = status ?? problem.status;
    this.requestId = problem.request_id;
    this.detail = problem.detail ?? '';
    this.errors = problem.errors ?? [];
    this.shipmentId = problem.shipment_id;
    this.retryAfterSeconds = retryAfterSeconds;
    this.problem = problem;
  }
}

/** Whether `err` is an API error, optionally of one of `codes`; narrows `err.code`. */
export function isApiError<C extends ErrorCode>(err: unknown, ...codes: C[]): err is ParcelShippingError<C> {
  return err instanceof ParcelShippingError && (codes.length === 0 || codes.includes(err.code as C));
}

/** The API could not be reached (after the retries), or it answered something that is not the API's. */
export class ParcelShippingConnectionError extends Error {
  override readonly name = 'ParcelShippingConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A webhook whose signature, timestamp or body does not check out. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
