import { SimHttpError, type SimApi, type SimReply, type SimRequest } from './sim-types.js';
import type { CardAuthorization, CardStatus, SimState } from './state.js';
import { jsonObject, positiveInteger, requiredString } from './validate.js';

const BASE = '/cardpay/v1/authorizations';

/** Which status each action moves to, and from which status it may start. */
const ACTIONS: Record<'capture' | 'void' | 'refund', { from: CardStatus; to: CardStatus }> = {
  capture: { from: 'authorized', to: 'captured' },
  void: { from: 'authorized', to: 'voided' },
  refund: { from: 'captured', to: 'refunded' },
};

/**
 * A card processor for card-funded accounts: authorize (idempotent by our reference), then capture,
 * void or refund. Repeating an action that has already happened answers as the first time did.
 */
export function createCardpayApi(state: SimState): SimApi {
  return {
    code: 'cardpay',
    isCarrier: false,
    operations: ['authorize', 'capture', 'void', 'refund', 'lookup'],
    errorBody: (code, message) => ({ error: { code, message } }),
    routes: [
      { method: 'POST', pattern: new RegExp(`^${BASE}$`), operation: 'authorize', handle: (req) => authorize(state, req) },
      { method: 'GET', pattern: new RegExp(`^${BASE}$`), operation: 'lookup', handle: (req) => list(state, req) },
      { method: 'GET', pattern: new RegExp(`^${BASE}/([^/]+)$`), operation: 'lookup', handle: (req) => read(state, req) },
      ...(['capture', 'void', 'refund'] as const).map((action) => ({
        method: 'POST' as const,
        pattern: new RegExp(`^${BASE}/([^/]+)/${action}$`),
        operation: action,
        handle: (req: SimRequest) => act(state, req, action),
      })),
    ],
  };
}

function authorize(state: SimState, req: SimRequest): SimReply {
  const body = jsonObject(req);
  const customer = requiredString(body, 'customer');
  const amount = positiveInteger(body, 'amount');
  const currency = requiredString(body, 'currency').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw new SimHttpError(400, 'invalid_request', 'currency must be an ISO 4217 code.');
  const reference = requiredString(body, 'reference');
  const earlier = state.authorizations.find((a) => a.reference === reference);
  if (earlier) {
    if (earlier.amount !== amount || earlier.currency !== currency || earlier.customer !== customer) {
      throw new SimHttpError(422, 'reference_reused', `Reference ${reference} was already used for a different authorization.`);
    }
    return { status: 201, body: view(earlier), headers: { 'idempotent-replayed': 'true' } };
  }
  const authorization: CardAuthorization = {
    id: state.newId('auth'),
    customer,
    amount,
    currency,
    reference,
    status: 'authorized',
    createdAt: new Date().toISOString(),
  };
  state.authorizations.push(authorization);
  return { status: 201, body: view(authorization) };
}

function act(state: SimState, req: SimRequest, action: keyof typeof ACTIONS): SimReply {
  const authorization = byId(state, req.params[0]);
  const { from, to } = ACTIONS[action];
  if (authorization.status !== to) {
    if (authorization.status !== from) {
      throw new SimHttpError(422, 'invalid_state', `Cannot ${action} an authorization that is ${authorization.status}.`);
    }
    authorization.status = to;
  }
  return { status: 200, body: view(authorization) };
}

function list(state: SimState, req: SimRequest): SimReply {
  return { status: 200, body: { data: listAuthorizations(state, req.query.get('reference')) } };
}

function read(state: SimState, req: SimRequest): SimReply {
  return { status: 200, body: view(byId(state, req.params[0])) };
}

export function listAuthorizations(state: SimState, reference: string | null) {
  return state.authorizations.filter((a) => reference === null || a.reference === reference).map(view);
}

function byId(state: SimState, id: string): CardAuthorization {
  const found = state.authorizations.find((a) => a.id === id);
  if (!found) throw new SimHttpError(404, 'not_found', `No authorization ${id}.`);
  return found;
}

function view(a: CardAuthorization) {
  return {
    id: a.id,
    object: 'authorization',
    status: a.status,
    amount: a.amount,
    currency: a.currency,
    customer: a.customer,
    reference: a.reference,
    created_at: a.createdAt,
  };
}
