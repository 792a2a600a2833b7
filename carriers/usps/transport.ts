import { Agent, request, type Dispatcher } from 'undici';
import { parseRetryAfter } from '../http-client.js';
import { CarrierError } from '../types.js';
import { classifyUspsError } from './errors.js';

/** One HTTP exchange with USPS, before any meaning is read into it. */
export interface UspsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  text: string;
}

export interface UspsSendOptions {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path and query after the base URL: `/labels/v3/label`. */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** A purchase or a cancellation: a lost answer may mean it happened. */
  write: boolean;
}

/** Error codes that prove the connection never carried our request. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

let sharedAgent: Agent | undefined;
function defaultDispatcher(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 4_000 });
  return sharedAgent;
}

/**
 * Sends one request and returns whatever status came back; throws only when no answer came. A
 * request that may have reached USPS is `ambiguous` for a write (settle by idempotency key before
 * trying again) and `retryable` for a read.
 */
export async function sendToUsps(baseUrl: string, options: UspsSendOptions, timeoutMs: number, dispatcher?: Dispatcher): Promise<UspsAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await request(new URL(baseUrl + options.path), {
      method: options.method,
      headers: {
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      dispatcher: dispatcher ?? defaultDispatcher(),
    });
    const text = await response.body.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body, text };
  } catch (error) {
    const code = errorCode(error);
    const label = `USPS ${options.method} ${options.path.split('?')[0]}`;
    if (code !== undefined && NOT_SENT_CODES.has(code)) {
      throw new CarrierError('retryable', `${label}: could not connect (${code}); nothing was sent`, { carrierCode: 'usps' });
    }
    const what = signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ? `no answer within ${timeoutMs} ms` : `connection lost (${code ?? 'unknown'})`;
    if (!options.write) throw new CarrierError('retryable', `${label}: ${what}`, { carrierCode: 'usps' });
    throw new CarrierError('ambiguous', `${label}: ${what}; it may have been carried out`, { carrierCode: 'usps' });
  }
}

/** A failed answer as a CarrierError, with USPS's own code and words and any `Retry-After`. */
export function uspsAnswerError(answer: UspsAnswer, write: boolean, nowMs: number): CarrierError {
  const c = classifyUspsError(answer.status, answer.body ?? answer.text.trim().slice(0, 200), write);
  const retryAfterMs = answer.status === 429 || answer.status === 503 ? parseRetryAfter(answer.headers['retry-after'], nowMs) : undefined;
  return new CarrierError(c.kind, c.message, {
    status: answer.status,
    carrierCode: 'usps',
    ...(c.carrierErrorCode ? { carrierErrorCode: c.carrierErrorCode } : {}),
    ...(c.reason ? { reason: c.reason } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
