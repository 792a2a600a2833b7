import { randomUUID } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import { Agent, request, type Dispatcher } from 'undici';
import { isRecord } from '../decode.js';
import { CarrierError } from '../carrier-error.js';
import type { CarrierAnswer } from './types.js';

// Whether the request's headers reached the socket decides between "nothing happened" (retryable)
// and "it may have happened" (ambiguous). undici announces the moment it writes them on a
// diagnostics channel; each request carries a unique header so the announcement can be matched to it.
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
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export interface Exchange {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /**
   * An undici dispatcher of the caller's own; by default one Agent shared by every carrier client.
   * With one of its own we cannot watch it write, so only a failed connection counts as "nothing
   * sent" and every other loss is treated as possibly carried out.
   */
  dispatcher?: Dispatcher;
}

/** How a failed exchange is described and classified: its label, and whether a lost answer may mean it happened. */
export interface ExchangeContext {
  label: string;
  write: boolean;
  carrierCode: string;
}

/**
 * Sends one request under its deadline and answers whatever status came back; throws only when no
 * answer came: retryable when nothing reached the carrier or the call was a read, ambiguous for a
 * write that may have been carried out.
 */
export async function exchange(spec: Exchange, ctx: ExchangeContext): Promise<CarrierAnswer> {
  const callId = randomUUID();
  const progress = { sent: spec.dispatcher !== undefined };
  callsInFlight.set(callId, progress);
  const signal = AbortSignal.timeout(spec.timeoutMs);
  try {
    const response = await request(spec.url, {
      method: spec.method as Dispatcher.HttpMethod,
      headers: { ...spec.headers, [CALL_ID_HEADER]: callId },
      body: spec.body,
      signal,
      headersTimeout: spec.timeoutMs,
      bodyTimeout: spec.timeoutMs,
      dispatcher: spec.dispatcher ?? defaultDispatcher(),
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
    throw transportError(error, { ...ctx, sent: progress.sent, timedOut: signal.aborted, timeoutMs: spec.timeoutMs });
  } finally {
    callsInFlight.delete(callId);
  }
}

function transportError(error: unknown, ctx: ExchangeContext & { sent: boolean; timedOut: boolean; timeoutMs: number }): CarrierError {
  const code = errorCode(error);
  const details = { carrierCode: ctx.carrierCode };
  if (!ctx.sent || (code !== undefined && NOT_SENT_CODES.has(code))) {
    const what = ctx.timedOut ? `no connection within ${ctx.timeoutMs} ms` : `could not connect (${code ?? describe(error)})`;
    return new CarrierError('retryable', `${ctx.label}: ${what}; nothing was sent`, details);
  }
  const what =
    ctx.timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ? `no answer within ${ctx.timeoutMs} ms` : `connection lost after sending (${code ?? describe(error)})`;
  if (!ctx.write) return new CarrierError('retryable', `${ctx.label}: ${what}`, details);
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
