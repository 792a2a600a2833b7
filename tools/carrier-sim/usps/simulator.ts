import { randomBytes } from 'node:crypto';
import { parseBody } from './http-io.js';
import { cancel, label, reprint } from './labels.js';
import { cancelPickup, readPickup, scanForm, schedulePickup } from './forms-pickups.js';
import { rate, track } from './queries.js';
import { intlLabel, intlRate, intlReprint, returnLabel } from './abroad.js';
import { extraRates } from './extras.js';
import { standardizeAddress } from './addresses.js';
import { createSimBooks, type SimLabel } from './state.js';
import type { UspsDesk, UspsReply, UspsSimOperation, UspsSimRequest, UspsSimulatorOptions } from './desk.js';
import { USPS_SCHEMAS } from '../../../carriers/usps/schemas/index.js';
import { UspsTokenError, UspsTokenRequest, UspsTokenResponse } from '../../../carriers/usps/token.js';
import { answerSchemaProblems, requestSchemaProblems, schemaRoutes } from '../carrier-schemas.js';
import { requestProblems as tokenProblems } from '../schema-check.js';

/**
 * A simulator of the USPS v3 APIs we use, answering as the documents say: the OAuth token endpoint,
 * payment authorization, base-rates and extra-service price searches (domestic and international),
 * international labels with their customs pages, return labels, label purchase (JSON with `application/vnd.usps.labels+json`,
 * multipart otherwise), reprint and cancel by tracking number or by idempotency key, tracking, SCAN
 * forms, carrier pickups and address standardization. Every request and every JSON answer is checked
 * against the schemas generated from USPS's documents (carriers/usps/schemas; the OAuth token, which
 * has no document, against our own): a request that breaks them is refused with a 400, and every
 * problem is kept in `requestProblems` or `answerProblems`.
 * The core answers requests; `./server.ts` serves it on a port of its own with its own faults
 * (tests), and the shared carrier simulator mounts it under `/usps` with the control API's faults.
 */

export const USPS_PREFIXES = ['/oauth2/v3/', '/payments/v3/', '/prices/v3/', '/international-prices/v3/', '/labels/v3/', '/international-labels/v3/', '/tracking/v3/', '/scan-forms/v3/', '/pickup/v3/', '/addresses/v3/'];
const PICKUP_PATH = '/pickup/v3/carrier-pickup/';

/** Where each of USPS's documents is served: every API under its own prefix. */
const PREFIX_OF_DOCUMENT: Record<string, string> = {
  'usps/payments.yaml': '/payments/v3',
  'usps/domestic-prices.yaml': '/prices/v3',
  'usps/international-prices.yaml': '/international-prices/v3',
  'usps/domestic-labels.yaml': '/labels/v3',
  'usps/international-labels.yaml': '/international-labels/v3',
  'usps/tracking.yaml': '/tracking/v3',
  'usps/scan-forms.yaml': '/scan-forms/v3',
  'usps/carrier-pickup.yaml': '/pickup/v3',
  'usps/addresses.yaml': '/addresses/v3',
};
const SCHEMA_ROUTES = schemaRoutes(USPS_SCHEMAS, (schemas) => PREFIX_OF_DOCUMENT[schemas.source.document]);

export function uspsOperationOf(method: string, path: string): UspsSimOperation | undefined {
  if (method === 'POST' && path === '/oauth2/v3/token') return 'token';
  if (method === 'POST' && path === '/payments/v3/payment-authorization') return 'payment';
  if (method === 'POST' && path === '/prices/v3/base-rates/search') return 'rate';
  if (method === 'POST' && path === '/prices/v3/extra-service-rates/search') return 'extra_rate';
  if (method === 'POST' && path === '/international-prices/v3/base-rates/search') return 'intl_rate';
  if (method === 'POST' && path === '/international-prices/v3/extra-service-rates/search') return 'intl_extra_rate';
  if (method === 'POST' && path === '/labels/v3/label') return 'label';
  if (method === 'POST' && path === '/labels/v3/return-label') return 'return_label';
  if (method === 'POST' && path === '/international-labels/v3/international-label') return 'intl_label';
  if (method === 'POST' && path.startsWith('/international-labels/v3/international-label-reprint/')) return 'intl_reprint';
  if (method === 'DELETE' && (path === '/international-labels/v3/international-label' || path.startsWith('/international-labels/v3/international-label/'))) return 'cancel';
  if (method === 'POST' && (path === '/labels/v3/label-reprint' || path.startsWith('/labels/v3/label-reprint/'))) return 'reprint';
  if (method === 'DELETE' && (path === '/labels/v3/label' || path.startsWith('/labels/v3/label/'))) return 'cancel';
  if (method === 'GET' && path.startsWith('/tracking/v3/tracking/')) return 'track';
  if (method === 'POST' && path === '/scan-forms/v3/scan-form') return 'scanform';
  if (method === 'POST' && path === '/pickup/v3/carrier-pickup') return 'pickup';
  if (method === 'GET' && path.startsWith(PICKUP_PATH) && path.length > PICKUP_PATH.length) return 'pickup_read';
  if (method === 'DELETE' && path.startsWith(PICKUP_PATH) && path.length > PICKUP_PATH.length) return 'pickup_cancel';
  if (method === 'GET' && path === '/addresses/v3/address') return 'address';
  return undefined;
}

export const uspsErrorBody = (status: number, detail: string, parameter?: string) => ({
  apiVersion: 'v3',
  error: { code: String(status), message: status === 400 ? 'Bad Request' : detail, errors: [{ status: String(status), code: '00000XX', title: status === 400 ? 'Bad Request' : detail, detail, ...(parameter ? { source: { parameter } } : {}) }] },
});

export type UspsSimulator = ReturnType<typeof createUspsSimulator>;

export function createUspsSimulator(options: UspsSimulatorOptions) {
  const now = options.now ?? Date.now;
  const lifetime = options.tokenLifetimeSeconds ?? 8 * 3600;
  const tokens = new Map<string, number>();
  const calls: Record<UspsSimOperation, number> = { token: 0, payment: 0, rate: 0, extra_rate: 0, intl_rate: 0, intl_extra_rate: 0, label: 0, return_label: 0, intl_label: 0, intl_reprint: 0, reprint: 0, cancel: 0, track: 0, scanform: 0, pickup: 0, pickup_read: 0, pickup_cancel: 0, address: 0 };
  const requestProblems: string[] = [];
  const answerProblems: string[] = [];
  let window = { start: 0, count: 0 };
  // Compiled once per process, before the first request: a big schema takes seconds to compile.
  for (const schemas of Object.values(USPS_SCHEMAS)) schemas.warm();

  const reply: UspsDesk['reply'] = (status, body, headers = {}) => ({ status, body, headers: { 'content-type': 'application/json', ...headers } });
  const desk: UspsDesk = {
    options,
    now,
    books: createSimBooks(),
    paymentTokens: new Set(),
    reply,
    labelsReply: (status, body) => reply(status, body, { 'content-type': 'application/vnd.usps.labels+json' }),
    error: (status, detail, parameter, headers) => reply(status, uspsErrorBody(status, detail, parameter), headers),
  };

  /** Checks a JSON answer against what the operation's document says of its status and media type. */
  function checkAnswer(operation: UspsSimOperation, req: Pick<UspsSimRequest, 'method' | 'path'>, answer: UspsReply): void {
    if (answer.body === undefined) return;
    const mediaType = (answer.headers?.['content-type'] ?? 'application/json').split(';')[0].trim();
    const found =
      operation === 'token'
        ? tokenProblems(answer.status === 200 ? UspsTokenResponse : UspsTokenError, answer.body)
        : answerSchemaProblems(SCHEMA_ROUTES, req.method, req.path, answer.status, answer.body, mediaType);
    for (const p of found) answerProblems.push(`${operation} answer ${answer.status}: ${p}`);
  }

  /** Every way a request breaks its document, recorded; a 400 when it does, as USPS's own validation would. */
  function refusal(operation: UspsSimOperation, req: UspsSimRequest, body: unknown): UspsReply | undefined {
    const found = operation === 'token' ? tokenProblems(UspsTokenRequest, body) : requestSchemaProblems(SCHEMA_ROUTES, { ...req, body });
    for (const p of found) requestProblems.push(`${operation}: ${p}`);
    if (found.length === 0) return undefined;
    if (operation === 'token') return reply(400, { error: 'invalid_request', error_description: 'grant_type, client_id and client_secret are required' });
    return desk.error(400, `Invalid request: ${found[0]}`);
  }

  /** Counts the call against the quota (USPS counts token requests too); a 429 when it is spent. */
  function admit(operation: UspsSimOperation): UspsReply | undefined {
    calls[operation]++;
    if (!options.quota) return undefined;
    const t = now();
    if (t - window.start >= options.quota.windowMs) window = { start: t, count: 0 };
    if (++window.count <= options.quota.limit) return undefined;
    const retryAfter = Math.max(1, Math.ceil((window.start + options.quota.windowMs - t) / 1000));
    return desk.error(429, 'Too Many Requests', undefined, { 'retry-after': String(retryAfter) });
  }

  /** Carries an admitted request out, its answer checked against the document. */
  async function serve(operation: UspsSimOperation, req: UspsSimRequest): Promise<UspsReply> {
    const answer = await carryOut(operation, req);
    checkAnswer(operation, req, answer);
    return answer;
  }

  async function carryOut(operation: UspsSimOperation, req: UspsSimRequest): Promise<UspsReply> {
    let body: unknown;
    try {
      body = req.rawBody === '' ? undefined : parseBody(req.rawBody, req.headers['content-type']);
    } catch {
      return desk.error(400, 'The request body is not valid JSON');
    }
    if (operation === 'token') return refusal(operation, req, body) ?? token(body);
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    const expiresAt = auth ? tokens.get(auth[1]) : undefined;
    if (expiresAt === undefined || now() >= expiresAt) return desk.error(401, 'Unauthorized', undefined, { 'www-authenticate': 'Bearer realm="https://api.usps.com"' });
    const refused = refusal(operation, req, body);
    if (refused) return refused;
    if (operation === 'payment') return payment(body);
    if (operation === 'rate') return rate(desk, body);
    if (operation === 'extra_rate' || operation === 'intl_extra_rate') return extraRates(desk, body, operation === 'intl_extra_rate');
    if (operation === 'intl_rate') return intlRate(desk, body);
    if (operation === 'track') return track(desk, decodeURIComponent(req.path.slice('/tracking/v3/tracking/'.length)), req.query.get('expand'));
    // SCAN forms and pickups take the OAuth token alone (their documents name no payment token).
    if (operation === 'scanform') return scanForm(desk, req.headers, body);
    if (operation === 'pickup') return schedulePickup(desk, body);
    if (operation === 'pickup_read') return readPickup(desk, decodeURIComponent(req.path.slice(PICKUP_PATH.length)));
    if (operation === 'pickup_cancel') return cancelPickup(desk, req.headers, decodeURIComponent(req.path.slice(PICKUP_PATH.length)));
    if (operation === 'address') return standardizeAddress(desk, req.query);
    const paymentToken = req.headers['x-payment-authorization-token'];
    if (typeof paymentToken !== 'string' || !desk.paymentTokens.has(paymentToken)) {
      return desk.error(400, 'X-Payment-Authorization-Token is invalid or expired', 'X-Payment-Authorization-Token');
    }
    if (operation === 'label') return label(desk, req.headers, body);
    if (operation === 'return_label') return returnLabel(desk, req.headers, body);
    if (operation === 'intl_label') return intlLabel(desk, req.headers, body);
    if (operation === 'intl_reprint') return intlReprint(desk, body, req.path);
    if (operation === 'reprint') return reprint(desk, req.headers, body, req.path);
    return cancel(desk, req.headers, req.path);
  }

  function token(body: unknown): UspsReply {
    const b = body as Record<string, string>;
    if (b.client_id !== options.clientId || b.client_secret !== options.clientSecret) {
      return reply(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
    }
    const value = randomBytes(24).toString('base64url');
    tokens.set(value, now() + lifetime * 1000);
    const expires = options.expiresInAsString === false ? lifetime : String(lifetime);
    return reply(200, { access_token: value, token_type: 'Bearer', expires_in: expires, scope: 'payments prices labels tracking addresses' });
  }

  function payment(body: unknown): UspsReply {
    const value = `${randomBytes(12).toString('base64url')}.${randomBytes(24).toString('base64url')}.${randomBytes(12).toString('base64url')}`;
    desk.paymentTokens.add(value);
    return reply(200, { paymentAuthorizationToken: value, roles: (body as { roles: unknown[] }).roles });
  }

  return {
    admit,
    serve,
    /** Admits and carries out one request; undefined when its path is not a USPS operation. */
    async respond(req: UspsSimRequest): Promise<UspsReply | undefined> {
      const operation = uspsOperationOf(req.method, req.path);
      if (!operation) return undefined;
      return admit(operation) ?? serve(operation, req);
    },
    /** Calls received per operation, token requests included. */
    calls,
    /** Every request that broke its schema, as `operation: problem`. */
    requestProblems,
    /** Every answer that broke its schema, as `operation answer status: problem`. */
    answerProblems,
    /** Checks an answer given outside `serve` (a stand-alone server's fault). */
    checkAnswer,
    labels: (): SimLabel[] => [...desk.books.labels.values()],
    /** Makes every issued access token expire now. */
    expireTokens() {
      for (const key of tokens.keys()) tokens.set(key, 0);
    },
  };
}

