import type { IncomingHttpHeaders } from 'node:http';
import { cancelPickup, dhlError, pickup, rate, reference, ship, track, type Answer, type DhlBooks } from './operations.js';
import { warmUpDhlDocuments } from './documents.js';
import { DEFAULT_CHECKPOINTS, type SimCheckpointStep, type SimDhlExtraCheckpoint, type SimDhlPickup, type SimDhlShipment } from './state.js';

/**
 * A simulator of the MyDHL API operations we use, answering as DHL's document says (3.1.1): rates,
 * shipments (label PDF, and the commercial invoice of a dutiable shipment), tracking of one waybill
 * and by reference, pickups and their cancel. HTTP Basic with the API key and secret, a
 * `Message-Reference` of 28 to 36 characters and the `x-version` header on every request; DHL's
 * RFC 7807-like error bodies; shipments walk through DHL's checkpoints as the clock moves, and
 * there is no cancel. The core answers requests; `./server.ts` serves it on a port of its own with
 * its own faults (tests), and `./mount.ts` mounts it in the shared carrier simulator.
 */

export type DhlSimOperation = 'rate' | 'ship' | 'track' | 'reference' | 'pickup' | 'pickup_cancel';

export interface DhlSimRequest {
  method: string;
  /** The path under the document's server URL: `/shipments`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

/** What a request is, for the validator: its operation, path parameters, query and headers. */
export interface DhlSimCall {
  operation: DhlSimOperation;
  params: Record<string, string>;
  request: DhlSimRequest;
}

export interface DhlSimulatorOptions {
  apiKey?: string;
  apiSecret?: string;
  accountNumber?: string;
  clock?: () => number;
  schedule?: SimCheckpointStep[];
  /**
   * Checks what goes in and out against the document's schemas: a request's parameters and body
   * (a bad one answers 400, as a checking server would) and every answer (recorded as violations).
   */
  validate?: {
    request(call: DhlSimCall, body: unknown): string[];
    response(call: DhlSimCall, status: number, body: unknown): string[];
  };
  /** Checkpoints from outside the schedule, e.g. the shared simulator's `/_sim/scans`. */
  extraCheckpoints?: (trackingNumber: string) => SimDhlExtraCheckpoint[];
  onPurchase?: (shipment: SimDhlShipment) => void;
}

/** The document's paths (under its server URL), each with its operation and path parameter. */
export const DHL_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST' | 'DELETE'; pattern: RegExp; operation: DhlSimOperation; param?: string }> = [
  { method: 'POST', pattern: /^\/rates$/, operation: 'rate' },
  { method: 'POST', pattern: /^\/shipments$/, operation: 'ship' },
  { method: 'GET', pattern: /^\/shipments\/([^/]+)\/tracking$/, operation: 'track', param: 'shipmentTrackingNumber' },
  { method: 'GET', pattern: /^\/tracking$/, operation: 'reference' },
  { method: 'POST', pattern: /^\/pickups$/, operation: 'pickup' },
  { method: 'DELETE', pattern: /^\/pickups\/([^/]+)$/, operation: 'pickup_cancel', param: 'dispatchConfirmationNumber' },
];

export { dhlError };

export type DhlSimulator = ReturnType<typeof createDhlSimulator>;

export function createDhlSimulator(options: DhlSimulatorOptions = {}) {
  warmUpDhlDocuments();
  const apiKey = options.apiKey ?? 'sim-dhl-api-key';
  const apiSecret = options.apiSecret ?? 'sim-dhl-api-secret';
  const shipments = new Map<string, SimDhlShipment>();
  const pickups = new Map<string, SimDhlPickup>();
  const violations: string[] = [];
  const log: Array<{ operation: DhlSimOperation; status: number; messageReference: string | undefined }> = [];
  let serial = 0;
  const books: DhlBooks = {
    account: options.accountNumber ?? '123456789',
    clock: options.clock ?? Date.now,
    schedule: options.schedule ?? DEFAULT_CHECKPOINTS,
    shipments,
    pickups,
    nextSerial: () => ++serial,
    extraCheckpoints: options.extraCheckpoints ?? (() => []),
    onPurchase: options.onPurchase,
  };

  function routeOf(method: string, path: string): { operation: DhlSimOperation; params: Record<string, string> } | undefined {
    for (const route of DHL_ROUTES) {
      const m = route.method === method ? route.pattern.exec(path) : null;
      if (m) return { operation: route.operation, params: route.param && m[1] !== undefined ? { [route.param]: decodeURIComponent(m[1]) } : {} };
    }
    return undefined;
  }

  /** What DHL refuses before it reads a request: credentials, then its required headers. */
  function refusal(call: DhlSimCall): Answer | undefined {
    const instance = `/expressapi${call.request.path}`;
    const basic = /^Basic (\S+)$/.exec(call.request.headers.authorization ?? '')?.[1];
    const [key, ...rest] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [];
    if (key !== apiKey || rest.join(':') !== apiSecret) return [401, dhlError(401, 'Unauthorized', 'Invalid credentials', instance)];
    const reference = call.request.headers['message-reference'];
    if (typeof reference !== 'string' || reference.length < 28 || reference.length > 36) {
      return [400, dhlError(400, 'Bad request', 'Message-Reference must be 28 to 36 characters', instance)];
    }
    if (typeof call.request.headers['x-version'] !== 'string') return [400, dhlError(400, 'Missing parameters', 'Missing mandatory parameters: x-version', instance)];
    return undefined;
  }

  async function answer(call: DhlSimCall): Promise<Answer> {
    const refused = refusal(call);
    if (refused) return refused;
    let body: any = undefined;
    if (call.request.rawBody !== '') {
      try {
        body = JSON.parse(call.request.rawBody);
      } catch {
        return [400, dhlError(400, 'Bad request', 'The request body is not valid JSON', `/expressapi${call.request.path}`)];
      }
    }
    const problems = options.validate?.request(call, body) ?? [];
    if (problems.length) {
      for (const p of problems) violations.push(`${call.operation} request: ${p}`);
      return [422, { ...dhlError(422, 'Validation error', problems.length > 1 ? 'Multiple problems found, see Additional Details' : problems[0], `/expressapi${call.request.path}`), additionalDetails: problems }];
    }
    const param = Object.values(call.params)[0] ?? '';
    switch (call.operation) {
      case 'rate':
        return rate(books, body);
      case 'ship':
        return ship(books, body);
      case 'track':
        return track(books, param);
      case 'reference':
        return reference(books, call.request.query);
      case 'pickup':
        return pickup(books, body);
      case 'pickup_cancel':
        return cancelPickup(books, param, call.request.query);
    }
  }

  /** The answer to one request, carried out and checked; undefined when the path is not DHL's. */
  async function respond(request: DhlSimRequest): Promise<{ operation: DhlSimOperation; status: number; body: unknown } | undefined> {
    const found = routeOf(request.method, request.path);
    if (!found) return undefined;
    const call: DhlSimCall = { ...found, request };
    const [status, body] = await answer(call);
    record(call, status, body);
    return { operation: found.operation, status, body };
  }

  function record(call: DhlSimCall, status: number, body: unknown): void {
    const reference = call.request.headers['message-reference'];
    log.push({ operation: call.operation, status, messageReference: typeof reference === 'string' ? reference : undefined });
    for (const v of options.validate?.response(call, status, body) ?? []) violations.push(`${call.operation} answer ${status}: ${v}`);
  }

  return {
    respond,
    /** The operation a request is, for faults taken before it is carried out. */
    operationOf: (method: string, path: string) => routeOf(method, path)?.operation,
    record,
    shipments,
    pickups,
    /** What the validator found wrong, in order. */
    violations,
    /** Every handled request: its operation, the status answered and its Message-Reference. */
    log,
    account: books.account,
  };
}
