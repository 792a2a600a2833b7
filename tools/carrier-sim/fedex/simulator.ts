import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { cancelPickup, createPickup } from './pickup.js';
import { FEDEX_ERROR, rate } from './rating.js';
import { cancelShipment, ship, type FedexBooks } from './shipping.js';
import { DEFAULT_SCAN_SCHEDULE, type FedexExtraScan, type FedexScanStep, type FedexSimPackage, type FedexSimPickup } from './state.js';
import { reference, track } from './tracking.js';

/**
 * A simulator of the FedEx APIs we use, answering as FedEx's documents say: the OAuth token
 * (as the carrier-specs README describes it), Rates and Transit Times, Ship (create, cancel), Basic
 * Integrated Visibility (by number, by reference) and Pickup Request (create, cancel). Same paths,
 * field names and error bodies; tokens expire; packages walk through their scans as the clock moves;
 * a shipment tendered to FedEx is not cancelled. The core answers requests; `./server.ts` serves it
 * on a port of its own with its own faults (tests), and the shared carrier simulator mounts it
 * under `/fedex` with the control API's faults.
 */

export type FedexSimOperation = 'token' | 'rate' | 'ship' | 'cancel' | 'track' | 'reference' | 'pickup' | 'pickup_cancel';

export type FedexSimFault = { operation: FedexSimOperation | 'any'; times?: number } & (
  | { kind: 'error'; status: number; code?: string; message?: string }
  /** Never answers; the connection is closed after `holdMs` (default 30 s) or when the client leaves. */
  | { kind: 'timeout'; holdMs?: number }
  | { kind: 'slow'; delayMs: number }
  /** Carries the operation out, then drops the connection before answering. */
  | { kind: 'lose_answer' }
);

export interface FedexSimulatorOptions {
  clientId?: string;
  clientSecret?: string;
  /** The shipper account: nine digits. */
  accountNumber?: string;
  /** Token lifetime in seconds (FedEx's: 3599). */
  tokenTtlSeconds?: number;
  clock?: () => number;
  scanSchedule?: FedexScanStep[];
  /**
   * Checks what goes in and out against the schemas of FedEx's documents; the messages it returns are
   * recorded, and a request that breaks its schema is answered 400 as a checking server would.
   */
  validate?: (direction: 'request' | 'response', operation: FedexSimOperation, body: unknown, status: number) => string[];
  /** Scans from outside the schedule, e.g. the shared simulator's `/_sim/scans`. */
  extraScans?: (trackingNumber: string) => FedexExtraScan[];
  onPurchase?: (pkg: FedexSimPackage) => void;
  onCancel?: (pkg: FedexSimPackage) => void;
}

/** A request as the core reads it: the path is FedEx's own, without any mount point. */
export interface FedexSimRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

export interface FedexSimAnswer {
  operation: FedexSimOperation;
  status: number;
  body: unknown;
}

/** FedEx's paths, each with the operation it is. */
export const FEDEX_ROUTES: ReadonlyArray<{ method: 'POST' | 'PUT'; path: string; operation: FedexSimOperation }> = [
  { method: 'POST', path: '/oauth/token', operation: 'token' },
  { method: 'POST', path: '/rate/v1/rates/quotes', operation: 'rate' },
  { method: 'POST', path: '/ship/v1/shipments', operation: 'ship' },
  { method: 'PUT', path: '/ship/v1/shipments/cancel', operation: 'cancel' },
  { method: 'POST', path: '/track/v1/trackingnumbers', operation: 'track' },
  { method: 'POST', path: '/track/v1/referencenumbers', operation: 'reference' },
  { method: 'POST', path: '/pickup/v1/pickups', operation: 'pickup' },
  { method: 'PUT', path: '/pickup/v1/pickups/cancel', operation: 'pickup_cancel' },
];

/** The error FedEx sends for a token it does not take (carrier-specs README). */
const EXPIRED = FEDEX_ERROR('NOT.AUTHORIZED.ERROR', 'Access token expired. Please modify your request and try again.');

export { FEDEX_ERROR };

export type FedexSimulator = ReturnType<typeof createFedexSimulator>;

export function createFedexSimulator(options: FedexSimulatorOptions = {}) {
  const clientId = options.clientId ?? 'sim-fedex-client-id';
  const clientSecret = options.clientSecret ?? 'sim-fedex-client-secret';
  const ttl = options.tokenTtlSeconds ?? 3_599;
  const clock = options.clock ?? Date.now;
  const tokens = new Map<string, number>();
  const packages = new Map<string, FedexSimPackage>();
  const pickups = new Map<string, FedexSimPickup>();
  const faults: FedexSimFault[] = [];
  const violations: string[] = [];
  const log: Array<{ operation: FedexSimOperation; status: number }> = [];
  let issued = 0;
  let serial = 0;
  const account = options.accountNumber ?? '740561073';
  const books: FedexBooks = {
    account,
    clock,
    schedule: options.scanSchedule ?? DEFAULT_SCAN_SCHEDULE,
    packages,
    nextSerial: () => ++serial,
    extraScans: options.extraScans ?? (() => []),
    ...(options.onPurchase ? { onPurchase: options.onPurchase } : {}),
    ...(options.onCancel ? { onCancel: options.onCancel } : {}),
  };
  const pickupBooks = { account, pickups, clock, nextSerial: () => ++serial };

  /** Logs an answer and checks it against the documents' schemas. */
  function record(operation: FedexSimOperation, status: number, body: unknown): void {
    log.push({ operation, status });
    for (const v of options.validate?.('response', operation, body, status) ?? []) violations.push(`${operation} answer ${status}: ${v}`);
  }

  const operationOf = (method: string, path: string) => FEDEX_ROUTES.find((r) => r.method === method && r.path === path)?.operation;

  /** The answer to one request, carried out (and recorded); undefined when the path is not FedEx's. */
  async function respond(req: FedexSimRequest): Promise<FedexSimAnswer | undefined> {
    const operation = operationOf(req.method, req.path);
    if (!operation) return undefined;
    const [status, body] = await answer(operation, req);
    record(operation, status, body);
    return { operation, status, body };
  }

  async function answer(operation: FedexSimOperation, req: FedexSimRequest): Promise<[number, unknown]> {
    if (operation === 'token') return issueToken(req.headers['content-type'], req.rawBody);
    const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const expiresAt = bearer === undefined ? undefined : tokens.get(bearer);
    if (expiresAt === undefined || expiresAt <= clock()) return [401, EXPIRED];
    let body: any;
    try {
      body = JSON.parse(req.rawBody);
    } catch {
      return [400, FEDEX_ERROR('INVALID.INPUT.EXCEPTION', 'Invalid field value in the input')];
    }
    const problems = options.validate?.('request', operation, body, 0) ?? [];
    if (problems.length) {
      for (const p of problems) violations.push(`${operation} request: ${p}`);
      return [400, FEDEX_ERROR('INVALID.INPUT.EXCEPTION', `Invalid field value in the input: ${problems[0]}`)];
    }
    switch (operation) {
      case 'rate':
        return rate(account, body);
      case 'ship':
        return ship(books, body);
      case 'cancel':
        return cancelShipment(books, body);
      case 'track':
        return track(books, body);
      case 'reference':
        return reference(books, body);
      case 'pickup':
        return createPickup(pickupBooks, body);
      case 'pickup_cancel':
        return cancelPickup(pickupBooks, body);
    }
  }

  /** `POST /oauth/token` with a form body: client credentials, as FedEx's API Authorization guide has it. */
  function issueToken(contentType: string | undefined, raw: string): [number, unknown] {
    const form = new URLSearchParams(raw);
    if (!contentType?.startsWith('application/x-www-form-urlencoded') || form.get('grant_type') !== 'client_credentials') {
      return [400, FEDEX_ERROR('BAD.REQUEST.ERROR', 'The request is missing the client credentials grant in a form body.')];
    }
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      return [401, FEDEX_ERROR('NOT.AUTHORIZED.ERROR', 'The given client credentials were not valid. Please modify your request and try again.')];
    }
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, clock() + ttl * 1000);
    issued += 1;
    return [200, { access_token: token, token_type: 'bearer', expires_in: ttl, scope: 'CXS' }];
  }

  return {
    respond,
    operationOf,
    record,
    packages,
    pickups,
    faults,
    violations,
    log,
    tokensIssued: () => issued,
    /** Makes every issued token expire now (as if its lifetime had passed). */
    expireTokens: () => {
      for (const token of tokens.keys()) tokens.set(token, clock());
    },
  };
}
