/**
 * The shared client as the simulated carriers use it: JSON over HTTP without credentials, every
 * call classified by the carrier kit (kit/): Stripe's rules, the carrier's refusal reasons by its
 * error codes. Real carriers declare the kit's client directly (`createCarrierClient`), with auth.
 */
import type { Dispatcher } from 'undici';
import type { CarrierErrorReason } from './carrier-error.js';
import { createCarrierClient, readCommonError, type CarrierCallSpec, type CarrierOperation } from './kit/index.js';

export type { CarrierOperation } from './kit/index.js';
export { parseRetryAfter, readCommonError } from './kit/index.js';

export const DEFAULT_TIMEOUT_MS = 5000;

export interface CarrierHttpClientOptions {
  carrierCode: string;
  baseUrl: string;
  timeoutMs?: number;
  /** Pulls the carrier's own error code and message out of an error body (each carrier's shape differs). */
  readError?: (body: unknown) => { code?: string; message?: string };
  /** The carrier's error codes that mean one of our refusal reasons: `{ already_scanned: 'already_scanned' }`. */
  reasons?: Record<string, CarrierErrorReason>;
  /** An undici dispatcher (Agent, MockAgent); by default one Agent shared by every carrier client. */
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

export function createCarrierHttpClient(options: CarrierHttpClientOptions): CarrierHttpClient {
  const reasons = options.reasons ?? {};
  const client = createCarrierClient({
    carrierCode: options.carrierCode,
    name: options.carrierCode,
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    auth: { kind: 'none' },
    readError: options.readError ?? readCommonError,
    hint: ({ info, status }) => (status !== 409 && status !== 429 && status < 500 && info.code !== undefined && Object.hasOwn(reasons, info.code) ? { reason: reasons[info.code] } : undefined),
    dispatcher: options.dispatcher,
  });
  return { carrierCode: options.carrierCode, call: <T>(spec: CarrierCall<T>) => client.call<T>(spec as CarrierCallSpec<T>) };
}
