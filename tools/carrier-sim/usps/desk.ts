/**
 * What the USPS simulator's operations share: the operations faults name, the simulator's options,
 * a request and its answer, and the desk (books, clock, how answers are made). Types only, so that
 * the operations (labels.ts, queries.ts, …) and the core that routes to them (simulator.ts) import
 * this and not each other.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { createSimBooks, SimExtraEvent, SimLabel } from './state.js';

export type UspsSimOperation =
  | 'token'
  | 'payment'
  | 'rate'
  | 'extra_rate'
  | 'intl_rate'
  | 'intl_extra_rate'
  | 'label'
  | 'return_label'
  | 'intl_label'
  | 'intl_reprint'
  | 'reprint'
  | 'cancel'
  | 'track'
  | 'scanform'
  | 'pickup'
  | 'pickup_read'
  | 'pickup_cancel'
  | 'address';

/**
 * A fault for the next call of an operation (stand-alone server):
 * - `error`: answer this status (and body, by default an `ErrorMessage`) instead;
 * - `timeout`: never answer (the client's deadline fires);
 * - `slow`: answer normally after `ms`;
 * - `lost`: carry the operation out, then drop the connection before answering.
 */
export type UspsSimFault =
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'timeout' }
  | { kind: 'slow'; ms: number }
  | { kind: 'lost' };

export interface UspsSimulatorOptions {
  clientId: string;
  clientSecret: string;
  /** Milliseconds since the epoch (default Date.now). Scans, tokens and quotas follow it. */
  now?: () => number;
  /** Lifetime of an access token (default 8 hours, USPS's). */
  tokenLifetimeSeconds?: number;
  /** Send `expires_in` as a string, as USPS sometimes does (default true). */
  expiresInAsString?: boolean;
  /** USPS's default quota, tokens included (default none; USPS's own is 60 an hour). */
  quota?: { limit: number; windowMs: number };
  /** Labels still in USPS's hands but no longer cancellable outright: refund requests after this (default 30 min). */
  manifestAfterMs?: number;
  /** Answer label purchases as multipart/form-data whatever the Accept header asks (a server that ignores it). */
  labelsAlwaysMultipart?: boolean;
  /** Scans from outside the timeline, e.g. the shared simulator's `/_sim/scans`; any of them refuses a refund. */
  extraEvents?: (trackingNumber: string) => SimExtraEvent[];
  onPurchase?: (label: SimLabel) => void;
  onCancel?: (label: SimLabel) => void;
}

/** A request as the core reads it: the path is USPS's own, without any mount point. */
export interface UspsSimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

/** An answer: JSON `body`, or `raw` text (a multipart label) whose type `headers` give. */
export interface UspsReply {
  status: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/** What the operations share: the books, the clock and the way answers are made. */
export interface UspsDesk {
  options: UspsSimulatorOptions;
  now: () => number;
  books: ReturnType<typeof createSimBooks>;
  paymentTokens: Set<string>;
  reply(status: number, body: unknown, headers?: Record<string, string>): UspsReply;
  /** A label (or form) answer as JSON, in the media type the request asked for: `application/vnd.usps.labels+json`. */
  labelsReply(status: number, body: unknown): UspsReply;
  error(status: number, detail: string, parameter?: string, headers?: Record<string, string>): UspsReply;
}
