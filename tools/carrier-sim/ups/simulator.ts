import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { UPS_ERROR, rate } from './rating.js';
import { recover, ship, voidShipment, type UpsBooks } from './shipping.js';
import { DEFAULT_SCAN_SCHEDULE, type SimExtraScan, type SimPackage, type SimScanStep } from './state.js';
import { reference, track } from './tracking.js';
import { cancelPickup, createPickup, pendingPickups, type SimPickup } from './pickup.js';
import { validateAddress } from './address-validation.js';
import { UPS_SCHEMAS } from '../../../carriers/ups/schemas/index.js';
import { requestSchemaProblems, schemaRoutes } from '../carrier-schemas.js';
import { createTrackAlert, type TrackAlertWebhook } from './track-alert.js';

/**
 * A simulator of the UPS APIs we use, answering as UPS's documents say: the OAuth token endpoint,
 * Rating (Rate, Shop), Shipping (ship, void, label recovery), Tracking (details, reference), Pickup
 * and Address Validation (street level).
 * Same paths, field names and error bodies; every request and every answer is checked against the
 * schemas generated from UPS's documents (carriers/ups/schemas), a request that breaks them refused
 * with a 400 and every problem kept in `violations`. Tokens expire, 429s carry no `Retry-After`, packages
 * walk through their scans as the clock moves, and a void after a scan is refused. The core answers
 * requests; `./server.ts` serves it on a port of its own with its own faults (tests), and the shared
 * carrier simulator mounts it under `/ups` with the control API's faults.
 */

export type UpsSimOperation = 'token' | 'rate' | 'ship' | 'void' | 'recover' | 'track' | 'reference' | 'pickup' | 'pickup_cancel' | 'pickup_pending' | 'address' | 'subscribe';

export type UpsSimFault = { operation: UpsSimOperation | 'any'; times?: number } & (
  | { kind: 'error'; status: number; code?: string; message?: string }
  /** Never answers; the connection is closed after `holdMs` (default 30 s) or when the client leaves. */
  | { kind: 'timeout'; holdMs?: number }
  | { kind: 'slow'; delayMs: number }
  /** Carries the operation out, then drops the connection before answering. */
  | { kind: 'lose_answer' }
);

export interface UpsSimulatorOptions {
  clientId?: string;
  clientSecret?: string;
  accountNumber?: string;
  /** Token lifetime in seconds (UPS's: 14399). */
  tokenTtlSeconds?: number;
  clock?: () => number;
  scanSchedule?: SimScanStep[];
  /** Scans from outside the schedule, e.g. the shared simulator's `/_sim/scans`. */
  extraScans?: (trackingNumber: string) => SimExtraScan[];
  onPurchase?: (pkg: SimPackage) => void;
  onVoid?: (pkg: SimPackage) => void;
  /** Where Track Alert pushes the events of subscribed packages (./track-alert.ts); none: kept until one is set. */
  trackAlert?: TrackAlertWebhook;
}

/** A request as the core reads it: the path is UPS's own, without any mount point. */
export interface UpsSimRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

export interface UpsSimAnswer {
  operation: UpsSimOperation;
  status: number;
  body: unknown;
}

/** UPS's paths, each with the operation it is. */
export const UPS_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST' | 'DELETE'; pattern: RegExp; operation: UpsSimOperation }> = [
  { method: 'POST', pattern: /^\/security\/v1\/oauth\/token$/, operation: 'token' },
  { method: 'POST', pattern: /^\/api\/rating\/v2409\/(Rate|Shop)$/, operation: 'rate' },
  { method: 'POST', pattern: /^\/api\/shipments\/v2409\/ship$/, operation: 'ship' },
  { method: 'DELETE', pattern: /^\/api\/shipments\/v2409\/void\/cancel\/([^/]+)$/, operation: 'void' },
  { method: 'POST', pattern: /^\/api\/labels\/v1\/recovery$/, operation: 'recover' },
  { method: 'GET', pattern: /^\/api\/track\/v1\/details\/([^/]+)$/, operation: 'track' },
  { method: 'GET', pattern: /^\/api\/track\/v1\/reference\/details\/([^/]+)$/, operation: 'reference' },
  { method: 'POST', pattern: /^\/api\/pickupcreation\/v2409\/pickup$/, operation: 'pickup' },
  { method: 'DELETE', pattern: /^\/api\/shipments\/v2409\/pickup\/([^/]+)$/, operation: 'pickup_cancel' },
  { method: 'GET', pattern: /^\/api\/shipments\/v2409\/pickup\/([^/]+)$/, operation: 'pickup_pending' },
  { method: 'POST', pattern: /^\/api\/addressvalidation\/v2\/([^/]+)$/, operation: 'address' },
  { method: 'POST', pattern: /^\/api\/track\/v2\/subscription\/(standard|enhanced)\/package$/, operation: 'subscribe' },
];

/** Each operation's schemas, generated from UPS's documents (the token at the origin, the APIs under `/api`). */
const SCHEMA_OF: Record<UpsSimOperation, keyof typeof UPS_SCHEMAS> = {
  token: 'oauth-token',
  rate: 'rating',
  ship: 'shipments',
  void: 'void',
  recover: 'label-recovery',
  track: 'tracking-details',
  reference: 'tracking-reference',
  pickup: 'pickup-creation',
  pickup_cancel: 'pickup-cancel',
  pickup_pending: 'pickup-pending',
  address: 'address-validation',
  subscribe: 'track-alert-package',
};
/** UPS's error code for a request its schema refuses; the operations without their own share 9370701. */
const REFUSAL: Partial<Record<UpsSimOperation, [string, string]>> = {
  token: ['10400', 'Invalid request'],
  address: ['264001', 'Invalid address validation request'],
  pickup: ['9500001', 'Invalid pickup request'],
};
// Track Alert's document is based at `/api/track/{version}`, the others at `/api` (the token at the origin).
const SCHEMA_ROUTES = schemaRoutes(UPS_SCHEMAS, (schemas) =>
  schemas.source.name === 'oauth-token' ? '' : schemas.source.name === 'track-alert-package' ? '/api/track/{version}' : '/api',
);

/** The error UPS sends for a token it does not accept. */
const INVALID_TOKEN = UPS_ERROR('250002', 'Invalid Authentication Information.');

export { UPS_ERROR };

export type UpsSimulator = ReturnType<typeof createUpsSimulator>;

export function createUpsSimulator(options: UpsSimulatorOptions = {}) {
  // Compiled once per process, before the first request: a big schema takes seconds to compile.
  for (const schemas of Object.values(UPS_SCHEMAS)) schemas.warm();
  const clientId = options.clientId ?? 'sim-client-id';
  const clientSecret = options.clientSecret ?? 'sim-client-secret';
  const ttl = options.tokenTtlSeconds ?? 14_399;
  const clock = options.clock ?? Date.now;
  const tokens = new Map<string, number>();
  const packages = new Map<string, SimPackage>();
  const pickups = new Map<string, SimPickup>();
  const faults: UpsSimFault[] = [];
  const violations: string[] = [];
  const log: Array<{ operation: UpsSimOperation; status: number }> = [];
  let issued = 0;
  // Numbers start at a random serial: simulators of one test run share one database, where the same
  // number bought from two of them would send one's Track Alert pushes to the other's shipment.
  let serial = randomInt(0, 5_000_000);
  const books: UpsBooks = {
    account: options.accountNumber ?? 'A1B2C3',
    clock,
    schedule: options.scanSchedule ?? DEFAULT_SCAN_SCHEDULE,
    packages,
    nextSerial: () => ++serial,
    extraScans: options.extraScans ?? (() => []),
    onPurchase: options.onPurchase,
    onVoid: options.onVoid,
  };
  const trackAlert = createTrackAlert(books, options.trackAlert);

  /** Logs an answer and checks it against what UPS's document says of the operation's answers. */
  function record(operation: UpsSimOperation, status: number, body: unknown): void {
    log.push({ operation, status });
    for (const v of UPS_SCHEMAS[SCHEMA_OF[operation]].responseProblems(status, body)) violations.push(`${operation} answer ${status}: ${v}`);
  }

  function refuse(operation: UpsSimOperation, problems: string[]): [number, unknown] {
    const [code, text] = REFUSAL[operation] ?? ['9370701', 'Invalid request'];
    return [400, UPS_ERROR(code, `${text}: ${problems[0]}`)];
  }

  /** Every way a request breaks its document: parameters (path, query, headers) and the body, closed. */
  function requestProblems(req: UpsSimRequest, body: unknown): string[] {
    return requestSchemaProblems(SCHEMA_ROUTES, { method: req.method, path: req.path, query: req.query, headers: req.headers, body });
  }

  function routeOf(method: string, path: string): { operation: UpsSimOperation; param?: string } | undefined {
    for (const route of UPS_ROUTES) {
      const m = route.method === method ? route.pattern.exec(path) : null;
      if (m) return { operation: route.operation, param: m[1] === undefined ? undefined : decodeURIComponent(m[1]) };
    }
    return undefined;
  }

  /** The answer to one request, carried out (and recorded); undefined when the path is not UPS's. */
  async function respond(req: UpsSimRequest): Promise<UpsSimAnswer | undefined> {
    const found = routeOf(req.method, req.path);
    if (!found) return undefined;
    const { operation } = found;
    const [status, body] = await answer(operation, found.param, req);
    record(operation, status, body);
    return { operation, status, body };
  }

  async function answer(operation: UpsSimOperation, param: string | undefined, req: UpsSimRequest): Promise<[number, unknown]> {
    if (operation === 'token') {
      const problems = requestProblems(req, Object.fromEntries(new URLSearchParams(req.rawBody)));
      for (const p of problems) violations.push(`token request: ${p}`);
      if (problems.length) return refuse('token', problems);
      return issueToken(req.headers.authorization, req.rawBody);
    }
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const expiresAt = bearer === undefined ? undefined : tokens.get(bearer);
    if (expiresAt === undefined || expiresAt <= clock()) return [401, INVALID_TOKEN];
    let body: any = undefined;
    if (req.rawBody !== '') {
      try {
        body = JSON.parse(req.rawBody);
      } catch {
        return [400, UPS_ERROR('9370701', 'Invalid JSON in the request body')];
      }
    }
    // A request that breaks its document is refused with a 400, as a checking server would.
    const problems = requestProblems(req, body);
    for (const p of problems) violations.push(`${operation} request: ${p}`);
    // Track Alert answers with its own codes, and takes the valid numbers of a list with invalid ones.
    if (operation === 'subscribe') return trackAlert.subscribe(body);
    if (problems.length) return refuse(operation, problems);
    switch (operation) {
      case 'rate':
        return rate(param as 'Rate' | 'Shop', body);
      case 'ship':
        return ship(books, body);
      case 'void':
        return voidShipment(books, param ?? '');
      case 'recover':
        return recover(books, body);
      case 'track':
        return track(books, param ?? '');
      case 'reference':
        return reference(books, param ?? '', req.query.get('shipperNum'));
      case 'pickup':
        return createPickup({ pickups, clock, nextSerial: () => ++serial }, body);
      case 'pickup_pending': {
        const account = req.headers.accountnumber;
        return pendingPickups({ pickups, clock, nextSerial: () => ++serial }, books.account, param ?? '', typeof account === 'string' ? account : undefined);
      }
      case 'address':
        return validateAddress(param ?? '', req.query, body);
      case 'pickup_cancel': {
        const prn = req.headers.prn;
        return cancelPickup({ pickups, clock, nextSerial: () => ++serial }, param ?? '', typeof prn === 'string' ? prn : undefined);
      }
    }
  }

  function issueToken(authorization: string | undefined, raw: string): [number, unknown] {
    const basic = /^Basic (\S+)$/.exec(authorization ?? '')?.[1];
    const [id, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [];
    if (id !== clientId || secret !== clientSecret) return [401, UPS_ERROR('10401', 'ClientId is Invalid')];
    if (new URLSearchParams(raw).get('grant_type') !== 'client_credentials') return [400, UPS_ERROR('10400', 'Invalid/Missing grant_type')];
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, clock() + ttl * 1000);
    issued += 1;
    return [200, { token_type: 'Bearer', issued_at: String(clock()), client_id: clientId, access_token: token, scope: '', expires_in: String(ttl), refresh_count: '0', status: 'approved' }];
  }

  return {
    respond,
    /** The operation a request is, for faults taken before it is carried out. */
    operationOf: (method: string, path: string) => routeOf(method, path)?.operation,
    record,
    packages,
    /** Track Alert: its subscriptions, its webhook and what it pushed. */
    trackAlert,
    /** Pickups booked, by PRN. */
    pickups,
    /** Faults of the stand-alone server (`./server.ts`). */
    faults,
    /** What the validate hook found wrong, in order. */
    violations,
    /** Every handled request: operation and HTTP status answered. */
    log,
    tokensIssued: () => issued,
    /** Makes every issued token expire now (as if its lifetime had passed). */
    expireTokens: () => {
      for (const token of tokens.keys()) tokens.set(token, clock());
    },
  };
}

