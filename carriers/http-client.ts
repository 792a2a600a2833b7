import { randomUUID } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import { Agent, request, type Dispatcher } from 'undici';
import { firstString, isRecord } from './decode.js';
import { CarrierError, type CarrierErrorReason } from './types.js';

/** What a call does at the carrier; decides how a lost answer is classified. */
export type CarrierOperation = 'quote' | 'buy' | 'lookup' | 'cancel' | 'track';

/** Reads are safe to repeat; buy and cancel may have happened when the answer is lost. */
const READ_OPERATIONS: ReadonlySet<CarrierOperation> = new Set(['quote', 'lookup', 'track']);

export const DEFAULT_TIMEOUT_MS = 5000;

export interface CarrierHttpClientOptions {
  carrierCode: string;
  baseUrl: string;
  timeoutMs?: number;
  /** Pulls the carrier's own error code and message out of an error body (each carrier's shape differs). */
  readError?: (body: unknown) => { code?: string; message?: string };
  /** The carrier's error codes that mean one of our refusal reasons: `{ already_scanned: 'already_scanned' }`. */
  reasons?: Record<string, CarrierErrorReason>;
  /**
   * An undici dispatcher (Agent, MockAgent); by default one Agent shared by every carrier client.
   * With a dispatcher of your own we cannot watch it write, so only a failed connection counts
   * as "nothing sent" and every other loss is treated as possibly carried out.
   */
  dispatcher?: Dispatcher;
}

export interface CarrierCall<T> {
  operation: CarrierOperation;
  method: 'GET' | 'POST' | 'DELETE';
  /** Appended to the base URL: `/labels`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Turns a parsed 2xx body into the result; undefined means the body is not what the carrier promised. */
  decode(body: unknown, status: number): T | undefined;
}

export interface CarrierHttpClient {
  readonly carrierCode: string;
  call<T>(call: CarrierCall<T>): Promise<T>;
}

// Whether the request's headers reached the socket decides between "nothing happened" (retryable)
// and "it may have happened" (ambiguous). undici announces the moment it writes them on a
// diagnostics channel; each call carries a unique header so the announcement can be matched to it.
const CALL_ID_HEADER = 'x-client-request-id';
const callsInFlight = new Map<string, { sent: boolean }>();
subscribe('undici:client:sendHeaders', (message) => {
  const headers = (message as { headers?: unknown }).headers;
  if (typeof headers !== 'string') return;
  const match = /(?:^|\r\n)x-client-request-id: ([\w-]+)\r\n/i.exec(headers);
  const call = match ? callsInFlight.get(match[1]) : undefined;
  if (call) call.sent = true;
});

// Our own connection pool, not the process-wide one: Node's built-in fetch installs a global
// dispatcher of its bundled undici version, and carrier calls should not depend on which came first.
let sharedAgent: Agent | undefined;
function defaultDispatcher(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 4_000 });
  return sharedAgent;
}

/** Error codes that prove the connection never carried our request. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function isReadOperation(operation: CarrierOperation): boolean {
  return READ_OPERATIONS.has(operation);
}

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

export function createCarrierHttpClient(options: CarrierHttpClientOptions): CarrierHttpClient {
  const { carrierCode } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const readError = options.readError ?? readCommonError;
  const watchesSending = options.dispatcher === undefined;
  new URL(baseUrl); // a misconfigured base URL fails when the adapter is made, not on a purchase

  async function call<T>(spec: CarrierCall<T>): Promise<T> {
    const label = `${carrierCode} ${spec.operation}`;
    const read = isReadOperation(spec.operation);
    const url = new URL(baseUrl + spec.path);
    for (const [k, v] of Object.entries(spec.query ?? {})) url.searchParams.set(k, v);
    const callId = randomUUID();
    const progress = { sent: !watchesSending };
    callsInFlight.set(callId, progress);
    const signal = AbortSignal.timeout(timeoutMs);

    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const response = await request(url, {
        method: spec.method,
        headers: {
          accept: 'application/json',
          ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...spec.headers,
          [CALL_ID_HEADER]: callId,
        },
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        dispatcher: options.dispatcher ?? defaultDispatcher(),
      });
      status = response.statusCode;
      headers = response.headers;
      text = await response.body.text();
    } catch (error) {
      throw transportError(error, { label, read, sent: progress.sent, timedOut: signal.aborted, timeoutMs, carrierCode });
    } finally {
      callsInFlight.delete(callId);
    }

    if (status >= 200 && status < 300) {
      const decoded = decodeBody(text, status, spec.decode);
      if (decoded !== undefined) return decoded;
      const message = `${label}: the carrier answered ${status} with a body we cannot read`;
      // The carrier did something, but we cannot tell what: a purchase may exist.
      throw new CarrierError(read ? 'retryable' : 'ambiguous', message, { status, carrierCode });
    }
    throw statusError(status, headers, text, label, carrierCode, readError, options.reasons ?? {}, read);
  }

  return { carrierCode, call };
}

function decodeBody<T>(text: string, status: number, decode: (body: unknown, status: number) => T | undefined): T | undefined {
  let parsed: unknown;
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    return undefined;
  }
  try {
    return decode(parsed, status);
  } catch {
    return undefined;
  }
}

function statusError(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  label: string,
  carrierCode: string,
  readError: (body: unknown) => { code?: string; message?: string },
  reasons: Record<string, CarrierErrorReason>,
  read: boolean,
): CarrierError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const info = body === undefined ? {} : readError(body);
  const carrierMessage = info.message ?? (body === undefined ? text.trim().slice(0, 200) : '');
  const details = { status, carrierCode, ...(info.code ? { carrierErrorCode: info.code } : {}) };
  // Stripe's rule: a conflict, a rate limit or a server fault did nothing and may succeed later.
  if (status === 409 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    const message = `${label}: HTTP ${status}${carrierMessage ? `: ${carrierMessage}` : ''}`;
    const withRetry = retryAfterMs === undefined ? details : { ...details, retryAfterMs };
    // Except for a write behind a gateway: a 502, 503 or 504 may come from a proxy that had already
    // forwarded it, so the purchase or cancellation may have happened (ask the carrier before again).
    if (!read && (status === 502 || status === 503 || status === 504)) return new CarrierError('ambiguous', `${message}; it may have been carried out`, withRetry);
    return new CarrierError('retryable', message, withRetry);
  }
  // Any other refusal is the carrier's final word; its own message is what a customer needs to see.
  const reason = info.code !== undefined && Object.hasOwn(reasons, info.code) ? reasons[info.code] : undefined;
  return new CarrierError('definitive', carrierMessage || `${label}: HTTP ${status}`, reason ? { ...details, reason } : details);
}

function transportError(
  error: unknown,
  ctx: { label: string; read: boolean; sent: boolean; timedOut: boolean; timeoutMs: number; carrierCode: string },
): CarrierError {
  const code = errorCode(error);
  const details = { carrierCode: ctx.carrierCode };
  if (!ctx.sent || (code !== undefined && NOT_SENT_CODES.has(code))) {
    const what = ctx.timedOut ? `no connection within ${ctx.timeoutMs} ms` : `could not connect (${code ?? describe(error)})`;
    return new CarrierError('retryable', `${ctx.label}: ${what}; nothing was sent`, details);
  }
  const what = ctx.timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'
    ? `no answer within ${ctx.timeoutMs} ms`
    : `connection lost after sending (${code ?? describe(error)})`;
  if (ctx.read) return new CarrierError('retryable', `${ctx.label}: ${what}`, details);
  return new CarrierError('ambiguous', `${ctx.label}: ${what}; it may have been carried out`, details);
}

/** The first system or undici error code along the `cause` chain. */
function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; isRecord(e) && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
