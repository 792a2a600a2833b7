import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonical, disputeId, header, labelImage, lostAnswer, parseBody, readBody, round2 } from './http-io.js';
import { SIM_ACCEPTED_AFTER_MS, createSimBooks, simEvents, simPrice, simZone, type MailClass, type SimLabel } from './state.js';

/**
 * A simulator of the USPS v3 APIs we use, answering as the documents say: the OAuth token endpoint,
 * payment authorization, base-rates search, label purchase (JSON with `application/vnd.usps.labels+json`,
 * multipart otherwise), reprint and cancel by tracking number or by idempotency key, and tracking.
 */

export type UspsSimOperation = 'token' | 'payment' | 'rate' | 'label' | 'reprint' | 'cancel' | 'track';

/**
 * A fault for the next call of an operation:
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
  /** Checks a request against a schema by name; problems make a 400, as USPS's own validation would. */
  validateRequest?: (schemaName: string, value: unknown) => string[];
  /** Sees every answer body with the name of the schema it should fit. */
  onAnswer?: (schemaName: string, body: unknown) => void;
}

export interface UspsSimulator {
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Queues a fault for the next call of `operation`. */
  inject(operation: UspsSimOperation, fault: UspsSimFault): void;
  /** Calls received per operation, token requests included. */
  readonly calls: Record<UspsSimOperation, number>;
  /** Every request that broke its schema, as `operation: problem`. */
  readonly requestProblems: string[];
  labels(): SimLabel[];
  /** Makes every issued access token expire now. */
  expireTokens(): void;
}

const PREFIXES = ['/oauth2/v3/', '/payments/v3/', '/prices/v3/', '/labels/v3/', '/tracking/v3/'];
const JSON_LABELS = 'application/vnd.usps.labels+json';

export function createUspsSimulator(options: UspsSimulatorOptions): UspsSimulator {
  const now = options.now ?? Date.now;
  const lifetime = options.tokenLifetimeSeconds ?? 8 * 3600;
  const manifestAfterMs = options.manifestAfterMs ?? 30 * 60_000;
  const books = createSimBooks();
  const tokens = new Map<string, number>();
  const paymentTokens = new Set<string>();
  const faults = new Map<UspsSimOperation, UspsSimFault[]>();
  const calls: Record<UspsSimOperation, number> = { token: 0, payment: 0, rate: 0, label: 0, reprint: 0, cancel: 0, track: 0 };
  const requestProblems: string[] = [];
  let window = { start: 0, count: 0 };

  const errorBody = (status: number, detail: string, parameter?: string) => ({
    apiVersion: 'v3',
    error: { code: String(status), message: status === 400 ? 'Bad Request' : detail, errors: [{ status: String(status), code: '00000XX', title: status === 400 ? 'Bad Request' : detail, detail, ...(parameter ? { source: { parameter } } : {}) }] },
  });

  function send(res: ServerResponse, status: number, body: unknown, schema: string, headers: Record<string, string> = {}) {
    options.onAnswer?.(schema, body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
  const sendError = (res: ServerResponse, status: number, detail: string, parameter?: string, headers?: Record<string, string>) =>
    send(res, status, errorBody(status, detail, parameter), 'UspsErrorMessage', headers);

  function problems(operation: UspsSimOperation, schema: string, value: unknown): string[] {
    const found = options.validateRequest?.(schema, value) ?? [];
    for (const p of found) requestProblems.push(`${operation}: ${p}`);
    return found;
  }

  function operationOf(method: string, path: string): UspsSimOperation | undefined {
    if (method === 'POST' && path === '/oauth2/v3/token') return 'token';
    if (method === 'POST' && path === '/payments/v3/payment-authorization') return 'payment';
    if (method === 'POST' && path === '/prices/v3/base-rates/search') return 'rate';
    if (method === 'POST' && path === '/labels/v3/label') return 'label';
    if (method === 'POST' && path === '/labels/v3/label-reprint') return 'reprint';
    if (method === 'DELETE' && (path === '/labels/v3/label' || path.startsWith('/labels/v3/label/'))) return 'cancel';
    if (method === 'GET' && path.startsWith('/tracking/v3/tracking/')) return 'track';
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://usps.invalid');
    if (!PREFIXES.some((p) => url.pathname.startsWith(p))) return false;
    const text = await readBody(req);
    const operation = operationOf(req.method ?? 'GET', url.pathname);
    if (!operation) {
      sendError(res, 404, 'Resource Not Found');
      return true;
    }
    calls[operation]++;

    // USPS counts every call against the quota, token requests included.
    if (options.quota) {
      const t = now();
      if (t - window.start >= options.quota.windowMs) window = { start: t, count: 0 };
      if (++window.count > options.quota.limit) {
        const retryAfter = Math.max(1, Math.ceil((window.start + options.quota.windowMs - t) / 1000));
        sendError(res, 429, 'Too Many Requests', undefined, { 'retry-after': String(retryAfter) });
        return true;
      }
    }

    const fault = faults.get(operation)?.shift();
    if (fault?.kind === 'timeout') return true; // never answered: the client's deadline fires
    if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === 'error') {
      if (fault.body === undefined) sendError(res, fault.status, `Simulated ${fault.status}`, undefined, fault.headers);
      else send(res, fault.status, fault.body, 'UspsErrorMessage', fault.headers);
      return true;
    }
    // A lost answer: the operation is carried out, then the connection drops before the answer.
    const target = fault?.kind === 'lost' ? lostAnswer(res) : res;

    let body: unknown;
    try {
      body = text === '' ? undefined : parseBody(text, req.headers['content-type']);
    } catch {
      sendError(target, 400, 'The request body is not valid JSON');
      return true;
    }

    if (operation === 'token') {
      token(target, body);
      return true;
    }
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const expiresAt = auth ? tokens.get(auth[1]) : undefined;
    if (expiresAt === undefined || now() >= expiresAt) {
      sendError(target, 401, 'Unauthorized', undefined, { 'www-authenticate': 'Bearer realm="https://api.usps.com"' });
      return true;
    }
    if (operation === 'payment') payment(target, body);
    else if (operation === 'rate') rate(target, body);
    else if (operation === 'track') track(target, decodeURIComponent(url.pathname.slice('/tracking/v3/tracking/'.length)), url.searchParams.get('expand'));
    else if (!paymentTokenOk(req, target, operation)) return true;
    else if (operation === 'label') label(req, target, body);
    else if (operation === 'reprint') reprint(req, target, body);
    else cancel(req, target, url.pathname);
    return true;
  }

  function token(res: ServerResponse, body: unknown) {
    if (problems('token', 'UspsTokenRequest', body).length) {
      send(res, 400, { error: 'invalid_request', error_description: 'grant_type, client_id and client_secret are required' }, 'UspsTokenError');
      return;
    }
    const b = body as Record<string, string>;
    if (b.client_id !== options.clientId || b.client_secret !== options.clientSecret) {
      send(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' }, 'UspsTokenError');
      return;
    }
    const value = randomBytes(24).toString('base64url');
    tokens.set(value, now() + lifetime * 1000);
    const expires = options.expiresInAsString === false ? lifetime : String(lifetime);
    send(res, 200, { access_token: value, token_type: 'Bearer', expires_in: expires, scope: 'payments prices labels tracking' }, 'UspsTokenResponse');
  }

  function payment(res: ServerResponse, body: unknown) {
    if (problems('payment', 'UspsPaymentAuthorizationRequest', body).length) return sendError(res, 400, 'Invalid payment authorization request', 'roles');
    const value = `${randomBytes(12).toString('base64url')}.${randomBytes(24).toString('base64url')}.${randomBytes(12).toString('base64url')}`;
    paymentTokens.add(value);
    send(res, 200, { paymentAuthorizationToken: value, roles: (body as { roles: unknown[] }).roles }, 'UspsPaymentAuthorizationResponse');
  }

  function paymentTokenOk(req: IncomingMessage, res: ServerResponse, operation: UspsSimOperation): boolean {
    const value = req.headers['x-payment-authorization-token'];
    if (typeof value === 'string' && paymentTokens.has(value)) return true;
    problems(operation, 'UspsLabelHeaders', {});
    sendError(res, 400, 'X-Payment-Authorization-Token is invalid or expired', 'X-Payment-Authorization-Token');
    return false;
  }

  function rate(res: ServerResponse, body: unknown) {
    if (problems('rate', 'UspsBaseRatesQuery', body).length) return sendError(res, 400, 'Invalid rate ingredients');
    const q = body as Record<string, string & number>;
    const zone = simZone(q.originZIPCode, q.destinationZIPCode);
    const { price, fee } = simPrice(q.mailClass as MailClass, zone, q.weight, q.processingCategory === 'NONSTANDARD');
    send(res, 200, {
      totalBasePrice: round2(price + fee),
      rates: [
        {
          SKU: 'DPXX0XXXXC00010',
          description: `${q.mailClass} ${q.processingCategory} Single-piece`,
          priceType: q.priceType,
          price,
          weight: q.weight,
          dimWeight: 0,
          fees: fee ? [{ name: 'Nonstandard Length > 22', SKU: 'D811XUXXXXX0000', price: fee }] : [],
          startDate: '2026-01-18',
          endDate: '',
          mailClass: q.mailClass,
          zone: String(zone).padStart(2, '0'),
          processingCategory: q.processingCategory,
          rateIndicator: q.rateIndicator,
          destinationEntryFacilityType: 'NONE',
        },
      ],
    }, 'UspsBaseRateOption');
  }

  function label(req: IncomingMessage, res: ServerResponse, body: unknown) {
    const key = header(req, 'x-idempotency-key');
    const found = [...problems('label', 'UspsLabelRequest', body), ...problems('label', 'UspsLabelHeaders', { 'x-payment-authorization-token': header(req, 'x-payment-authorization-token'), 'x-idempotency-key': key })];
    if (found.length) return sendError(res, 400, `Invalid label request: ${found[0]}`);
    const b = body as { imageInfo?: { imageType?: string }; toAddress: { ZIPCode: string }; fromAddress: { ZIPCode: string }; packageDescription: Record<string, string & number> };
    const existing = key ? books.byKey(key) : undefined;
    if (existing) {
      // "When the same idempotency key is resubmitted with an identical request payload, the API will return the existing label."
      if (existing.requestText !== canonical(body)) return sendError(res, 400, 'X-Idempotency-Key was already used with a different request', 'X-Idempotency-Key');
      return sendLabel(req, res, existing);
    }
    const p = b.packageDescription;
    const zone = simZone(b.fromAddress.ZIPCode, b.toAddress.ZIPCode);
    const { price, fee } = simPrice(p.mailClass as MailClass, zone, p.weight, p.processingCategory === 'NONSTANDARD');
    const created: SimLabel = {
      trackingNumber: books.nextTrackingNumber(),
      idempotencyKey: key,
      requestText: canonical(body),
      mailClass: p.mailClass as MailClass,
      imageType: b.imageInfo?.imageType ?? 'PDF',
      postage: round2(price + fee),
      zone: String(zone).padStart(2, '0'),
      createdAt: now(),
      mailingDate: p.mailingDate,
      destinationZIP: b.toAddress.ZIPCode,
      originZIP: b.fromAddress.ZIPCode,
      status: 'active',
      reprints: 0,
    };
    books.add(created);
    sendLabel(req, res, created);
  }

  function metadata(l: SimLabel) {
    return {
      routingInformation: `420${l.destinationZIP}`,
      trackingNumber: l.trackingNumber,
      constructCode: 'C01',
      SKU: 'DPXX0XXXXC00010',
      postage: l.postage,
      extraServices: [{ name: 'USPS Tracking', SKU: 'DXTP0EXXXCX0000', price: 0 }],
      zone: l.zone,
      mailingDate: `${l.mailingDate}T22:00:00Z`,
      commitment: { name: l.mailClass === 'USPS_GROUND_ADVANTAGE' ? '3-Day' : l.mailClass === 'PRIORITY_MAIL' ? '2-Day' : '1-Day' },
      weightUOM: 'lb',
      fees: [],
    };
  }

  function sendLabel(req: IncomingMessage, res: ServerResponse, l: SimLabel) {
    const image = labelImage(l);
    if (!options.labelsAlwaysMultipart && (req.headers.accept ?? '').includes(JSON_LABELS)) return send(res, 200, { ...metadata(l), labelImage: image }, 'UspsLabelVendorResponse');
    // The document's default: multipart/form-data with the metadata and the base64 image as parts.
    const boundary = `usps-${randomBytes(8).toString('hex')}`;
    const parts = [
      `--${boundary}\r\nContent-Disposition: form-data; name="labelMetadata"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(metadata(l))}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="labelImage"; filename="label.pdf"\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n${image}\r\n`,
      `--${boundary}--\r\n`,
    ];
    res.writeHead(200, { 'content-type': `multipart/form-data; boundary=${boundary}` });
    res.end(parts.join(''));
  }

  function reprint(req: IncomingMessage, res: ServerResponse, body: unknown) {
    const key = header(req, 'x-idempotency-key');
    if (problems('reprint', 'UspsLabelReprintRequest', body).length) return sendError(res, 400, 'Invalid reprint request');
    const l = key ? books.byKey(key) : undefined;
    if (!l) return sendError(res, 400, 'Label not found', 'X-Idempotency-Key');
    if (l.status !== 'active') return sendError(res, 400, 'Canceled labels are not eligible for reprint', 'X-Idempotency-Key');
    if (l.reprints >= 3) return sendError(res, 400, 'Labels can only be reprinted up to 3 times', 'X-Idempotency-Key');
    l.reprints++;
    const image = labelImage({ ...l, imageType: (body as { imageInfo?: { imageType?: string } }).imageInfo?.imageType ?? 'PDF' });
    send(res, 200, { labelMetadata: metadata(l), labelImage: image, reprintInfo: { reprintNumber: l.reprints, reprintLimit: 3 } }, 'UspsLabelReprintResponse');
  }

  function cancel(req: IncomingMessage, res: ServerResponse, path: string) {
    const key = header(req, 'x-idempotency-key');
    const l = path === '/labels/v3/label' ? (key ? books.byKey(key) : undefined) : books.byTracking(decodeURIComponent(path.slice('/labels/v3/label/'.length)));
    const t = now();
    if (!l || l.status === 'canceled') return sendError(res, 400, 'Order not found', 'trackingNumber');
    const today = new Date(t).toISOString().slice(0, 10);
    if (l.status === 'disputed') {
      if (l.refundRequestedOn === today) return sendError(res, 400, 'A refund request for this order has already been submitted today', 'trackingNumber');
      return send(res, 200, { trackingNumber: l.trackingNumber, status: 'DISPUTED', disputeId: disputeId(l) }, 'UspsCancelResponse');
    }
    // USPS refunds unused labels only: once the item is scanned, a refund request cannot be submitted.
    if (t >= l.createdAt + SIM_ACCEPTED_AFTER_MS) return sendError(res, 400, 'A refund request for this order cannot be submitted', 'trackingNumber');
    if (t < l.createdAt + manifestAfterMs) {
      l.status = 'canceled';
      return send(res, 200, { trackingNumber: l.trackingNumber, status: 'CANCELED' }, 'UspsCancelResponse');
    }
    l.status = 'disputed';
    l.refundRequestedOn = today;
    send(res, 200, { trackingNumber: l.trackingNumber, status: 'DISPUTED', disputeId: disputeId(l) }, 'UspsCancelResponse');
  }

  function track(res: ServerResponse, trackingNumber: string, expand: string | null) {
    const l = books.byTracking(trackingNumber);
    if (!l) return sendError(res, 404, 'Resource Not Found', 'trackingNumber');
    const events = simEvents(l, now());
    if (expand !== 'DETAIL') {
      return send(res, 200, { trackingNumber, eventSummaries: events.map((e) => `${String(e.eventType)}, ${String(e.eventCity)}`) }, 'UspsTrackingSummary');
    }
    const latest = events[0];
    send(res, 200, {
      trackingNumber,
      // The tracking document's `mailClass` list has no Ground Advantage; it is left out for that class.
      ...(l.mailClass === 'USPS_GROUND_ADVANTAGE' ? {} : { mailClass: l.mailClass }),
      destinationZIP: l.destinationZIP,
      originZIP: l.originZIP,
      status: latest?.eventType ?? 'Label Created',
      statusCategory: latest?.eventCode === '01' ? 'Delivered' : latest?.eventCode === 'GX' ? 'Pre-Shipment' : 'In Transit',
      trackingEvents: events,
    }, 'UspsTrackingDetails');
  }

  return {
    handle,
    inject(operation, fault) {
      faults.set(operation, [...(faults.get(operation) ?? []), fault]);
    },
    calls,
    requestProblems,
    labels: () => [...books.labels.values()],
    expireTokens() {
      for (const key of tokens.keys()) tokens.set(key, 0);
    },
  };
}

/** Starts the simulator on its own HTTP server (tests); `url` is the origin the client takes. */
export async function startUspsSimulator(options: UspsSimulatorOptions & { port?: number; host?: string }) {
  const simulator = createUspsSimulator(options);
  const server = createServer((req, res) => {
    simulator.handle(req, res).then(
      (handled) => {
        if (!handled) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: '404', message: 'Resource Not Found' } }));
        }
      },
      () => {
        res.writeHead(500);
        res.end();
      },
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    simulator,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
