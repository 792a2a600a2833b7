import type { IncomingHttpHeaders } from 'node:http';

/** A request as the simulator's handlers see it. */
export interface SimRequest {
  method: string;
  /** The path without the query: `/acme/v2/labels`. */
  path: string;
  query: URLSearchParams;
  /** The route pattern's captured groups, decoded. */
  params: string[];
  headers: IncomingHttpHeaders;
  rawBody: string;
}

export interface SimReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as is instead of `body` as JSON (a multipart answer): `headers` then name its type. */
  raw?: string;
}

export interface SimRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  pattern: RegExp;
  /** The operation faults name (`buy`, `track`); absent for control routes, which faults never touch. */
  operation?: string;
  /** May be async: a real carrier's label is an image rendered on purchase. */
  handle(req: SimRequest): SimReply | Promise<SimReply>;
}

/** One simulated remote API: a carrier, the card processor, or the control API. */
export interface SimApi {
  /** The name faults use in their `carrier` field: `acme`, `swiftpost`, `cardpay`. */
  code: string;
  /** Whether GET /_sim/carriers lists it (the card processor is not a carrier). */
  isCarrier: boolean;
  operations: readonly string[];
  routes: SimRoute[];
  /** This API's own error body shape, for an answer of this HTTP status. */
  errorBody(code: string, message: string, status: number): unknown;
  /** Whether its 429 carries `Retry-After` (default true; UPS sends none). */
  sendsRetryAfter?: boolean;
  /**
   * More texts a fault's `match` is looked for in, beyond the request's target and body: a request
   * that names a label only by its tracking number (a recovery) gives the label's own references and
   * recipient, so that a fault can single out one order's label.
   */
  faultTexts?(req: SimRequest): readonly string[];
  /**
   * A purchased label made without a purchase request, under our `reference`, for the tracking bench
   * (`POST /_sim/parcels`): its tracking number. Its scans come from the state's itineraries.
   */
  createParcel?(createdAt: number, reference: string): string;
}

/** Thrown by handlers to answer with an error in the API's own shape. */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
