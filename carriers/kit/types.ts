import type { Dispatcher } from 'undici';
import type { CarrierErrorKind, CarrierErrorReason } from '../carrier-error.js';

/** What a call does at the carrier; decides what a lost or gateway-failed answer means. */
export type CarrierOperation = 'quote' | 'buy' | 'lookup' | 'cancel' | 'track';

/** The carrier's own code and words for a failure, read from its error body. */
export interface CarrierErrorInfo {
  code?: string;
  message?: string;
}

/** A failed answer as the carrier's hint sees it. */
export interface FailedCall {
  status: number;
  info: CarrierErrorInfo;
  /** The parsed error body, or the raw text when it was not JSON. */
  body: unknown;
  operation: CarrierOperation;
  /** The carrier's own name for the call (`void`, `pickup_cancel`), or the operation. */
  name: string;
}

/**
 * The carrier's word on one failed answer, where its status alone would mislead: the kind (a
 * carrier that answers 400 for a moment's overload, or 200 for a refusal), the reason (`not_found`,
 * `already_scanned`) and the words a customer is shown. Absent fields keep the status's meaning.
 */
export interface ErrorHint {
  kind?: CarrierErrorKind;
  reason?: CarrierErrorReason;
  message?: string;
}

/** OAuth 2.0 client credentials (RFC 6749 §4.4): a bearer token, cached and renewed. */
export interface OAuthClientCredentials {
  kind: 'oauth_client_credentials';
  /** The token endpoint, under the client's base URL: `/oauth/token`. */
  tokenPath: string;
  clientId: string;
  clientSecret: string;
  /**
   * How the credentials travel: `basic`, HTTP Basic with `grant_type` in a form body (RFC 6749
   * §2.3.1; UPS); `form`, every field in a form body (FedEx); `json`, every field in a JSON body (USPS).
   */
  credentialsIn: 'basic' | 'form' | 'json';
  /** The token and its lifetime from the endpoint's answer; by default RFC 6749's `access_token` and `expires_in`. */
  readToken?(body: unknown): { accessToken: string; expiresInSeconds: number } | undefined;
  /** How long before it expires a token is renewed (default a tenth of its life, at most a minute). */
  renewBeforeMs?(lifeMs: number): number;
}

/** How every request proves who we are. */
export type CarrierAuth = { kind: 'none' } | { kind: 'basic'; username: string; password: string } | OAuthClientCredentials;

/** The carrier's published limits, kept by the client before and after each request. */
export interface CarrierCallLimits {
  /** A quota of calls an hour per process, tokens included: no call is sent beyond it (USPS: 60). */
  callsPerHour?: number;
  /**
   * With it, a 429's `Retry-After` holds every call of this client until then (a carrier whose quota
   * is small, USPS), waited in place once when at most this long and thrown with it otherwise.
   * Without it, the 429 is thrown at once with its `Retry-After`, for the caller's retry policy.
   */
  maxRetryAfterWaitMs?: number;
  /** A 429 without `Retry-After` (UPS sends none): this many waits, exponential with full jitter, capped. */
  backoff?: { attempts: number; baseMs: number; maxMs: number };
}

/** Everything the shared client needs to know of one carrier's API: a small declaration per carrier. */
export interface CarrierClientDeclaration {
  carrierCode: string;
  /** How messages name the carrier: `UPS`, `DHL Express`. */
  name: string;
  /** Where every path hangs: an origin, or a server URL whose path is kept (a document's server path, a gateway's prefix, the simulator's mount). */
  baseUrl: string;
  /** Deadline of every request in milliseconds. */
  timeoutMs: number;
  auth: CarrierAuth;
  /** The carrier's own code and words from an error body (each carrier's shape differs). */
  readError(body: unknown): CarrierErrorInfo;
  /** The carrier's hint on a failed answer (see ErrorHint); without it, the status decides alone. */
  hint?(failure: FailedCall): ErrorHint | undefined;
  /** Headers every request carries, made afresh for each (a request id, DHL's `Message-Reference`, a version). */
  headers?(request: CarrierRequest): Record<string, string>;
  limits?: CarrierCallLimits;
  /** Test seams: a clock, how waits are waited, the jitter's dice, an undici dispatcher (Agent, MockAgent). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  dispatcher?: Dispatcher;
}

/** One request to the carrier. */
export interface CarrierRequest {
  operation: CarrierOperation;
  /** The carrier's own name for the call, for its hint and for messages (default the operation). */
  name?: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Under the base URL: `/labels/v3/label`; a query may follow. */
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as `application/x-www-form-urlencoded` instead of `body`. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** Whether the request carries the client's credentials (default true; a token request does not). */
  authenticated?: boolean;
  /** This call's deadline where the carrier documents a slower operation (default the client's `timeoutMs`). */
  timeoutMs?: number;
}

/** One HTTP answer, before any meaning is read into it. */
export interface CarrierAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  text: string;
}

/** A request whose 2xx answer is read into a result; undefined from `decode` means the body is not what the carrier promised. */
export interface CarrierCallSpec<T> extends CarrierRequest {
  decode(body: unknown, status: number, answer: CarrierAnswer): T | undefined;
}
