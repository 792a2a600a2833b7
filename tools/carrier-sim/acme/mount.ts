import type { Address, Parcel } from '../../../domain/index.js';
import { acmeDefinition, quoteServices } from '../../../carriers/index.js';
import { eligibleService } from '../carrier-rules.js';
import { SimHttpError, type SimApi, type SimReply, type SimRequest } from '../sim-types.js';
import type { SimPurchase, SimState } from '../state.js';
import { manifestPdf } from '../form-files.js';
import { checkCustoms, checkOptions, isReturnOf } from './terms.js';
import { canonicalJson, countryCode, jsonObject, optionalString, positiveInteger, requiredObject, requiredString } from '../validate.js';

const CODE = 'acme';
const BASE = '/acme/v2';

/**
 * Acme Express API v2 as the simulator plays it: Stripe-like JSON, errors as
 * `{"error": {"code", "message"}}`, purchases idempotent by the `Idempotency-Key` header.
 */
export function mountSimulator(state: SimState): SimApi {
  return {
    code: CODE,
    isCarrier: true,
    // The tracking bench's labels (POST /_sim/parcels): bought without a request, scanned by their itinerary.
    createParcel: (_createdAt, reference) => state.addPurchase({ carrier: CODE, reference, service: 'acme_ground' }, acmeDefinition).trackingNumber,
    operations: ['quote', 'buy', 'lookup', 'cancel', 'track', 'manifest', 'pickup', 'pickup_cancel'],
    errorBody: (code, message) => ({ error: { code, message } }),
    routes: [
      { method: 'POST', pattern: route('/quotes'), operation: 'quote', handle: quote },
      { method: 'POST', pattern: route('/labels'), operation: 'buy', handle: (req) => buy(state, req) },
      { method: 'GET', pattern: route('/labels'), operation: 'lookup', handle: (req) => lookup(state, req) },
      { method: 'POST', pattern: route('/labels/void'), operation: 'cancel', handle: (req) => cancel(state, req) },
      { method: 'GET', pattern: route('/tracking/([^/]+)'), operation: 'track', handle: (req) => track(state, req) },
      { method: 'POST', pattern: route('/tracking'), operation: 'track', handle: (req) => trackMany(state, req) },
      { method: 'POST', pattern: route('/manifests'), operation: 'manifest', handle: (req) => manifest(state, req) },
      { method: 'POST', pattern: route('/pickups'), operation: 'pickup', handle: (req) => pickup(state, req) },
      { method: 'POST', pattern: route('/pickups/([^/]+)/cancel'), operation: 'pickup_cancel', handle: (req) => cancelPickup(state, req) },
    ],
  };
}

function route(path: string): RegExp {
  return new RegExp(`^${BASE}${path}$`);
}

function quote(req: SimRequest): SimReply {
  const body = jsonObject(req);
  const from = address(body, 'from');
  const to = address(body, 'to');
  const parcel = parcelOf(body);
  const data = quoteServices([acmeDefinition], parcel, from, to, { isReturn: isReturnOf(body) }).map((q) => ({
    service: q.service.code,
    amount: q.net,
    currency: 'GBP',
    estimated_days: q.service.estimatedDeliveryDays,
  }));
  return { status: 200, body: { object: 'list', data } };
}

function buy(state: SimState, req: SimRequest): SimReply {
  const body = jsonObject(req);
  const key = headerValue(req, 'idempotency-key');
  const fingerprint = canonicalJson(body);
  if (key !== undefined) {
    const earlier = state.purchaseByIdempotencyKey(CODE, key);
    if (earlier) {
      if (earlier.fingerprint !== fingerprint) {
        throw new SimHttpError(422, 'idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
      }
      return { status: 200, body: label(state, earlier), headers: { 'idempotent-replayed': 'true' } };
    }
  }
  const from = address(body, 'from');
  const to = address(body, 'to');
  const parcel = parcelOf(body);
  const reference = requiredString(body, 'reference');
  const serviceCode = requiredString(body, 'service');
  const service = eligibleService(acmeDefinition, serviceCode, parcel, from, to, {
    unknown: 'unknown_service',
    unavailable: 'service_unavailable',
  });
  checkCustoms(body, from, to, parcel);
  checkOptions(body, service);
  const isReturn = isReturnOf(body);
  const purchase = state.addPurchase(
    { carrier: CODE, reference, service: service.code, from, to, parcel, idempotencyKey: key, fingerprint, isReturn },
    acmeDefinition,
  );
  return { status: 201, body: label(state, purchase) };
}

function lookup(state: SimState, req: SimRequest): SimReply {
  const reference = req.query.get('reference');
  const found = reference === null ? state.purchases.filter((p) => p.carrier === CODE) : state.purchasesByReference(reference, CODE);
  const data = found.map((p) => label(state, p));
  return { status: 200, body: { object: 'list', data } };
}

function cancel(state: SimState, req: SimRequest): SimReply {
  const reference = requiredString(jsonObject(req), 'reference');
  const purchase = state.purchasesByReference(reference, CODE)[0];
  if (!purchase) throw new SimHttpError(404, 'label_not_found', `No label with reference ${reference}.`);
  if (!purchase.cancelled && state.scansOf(purchase.trackingNumber).length > 0) {
    throw new SimHttpError(422, 'already_scanned', `Label ${purchase.trackingNumber} has been scanned and can no longer be voided.`);
  }
  purchase.cancelled = true;
  return { status: 200, body: label(state, purchase) };
}

function track(state: SimState, req: SimRequest): SimReply {
  const trackingNumber = req.params[0];
  const found = trackingOf(state, trackingNumber);
  if (!found) throw new SimHttpError(404, 'tracking_number_not_found', `No label with tracking number ${trackingNumber}.`);
  return { status: 200, body: found };
}

/** At most this many numbers in one `POST /tracking`. */
const TRACK_MANY = 30;

/** Several numbers at once: each one's events, and the numbers Acme has no label for. */
function trackMany(state: SimState, req: SimRequest): SimReply {
  const numbers = jsonObject(req).tracking_numbers;
  if (!Array.isArray(numbers) || !numbers.length || numbers.length > TRACK_MANY || !numbers.every((n) => typeof n === 'string')) {
    throw new SimHttpError(422, 'invalid_request', `tracking_numbers must be a list of 1 to ${TRACK_MANY} strings.`);
  }
  const found = (numbers as string[]).map((n) => trackingOf(state, n));
  return {
    status: 200,
    body: { data: found.filter((f) => f !== undefined), not_found: (numbers as string[]).filter((_, i) => !found[i]) },
  };
}

function trackingOf(state: SimState, trackingNumber: string) {
  const purchase = state.purchaseByTracking(trackingNumber);
  if (!purchase || purchase.carrier !== CODE) return undefined;
  const events = state.scansOf(trackingNumber).map((s) => ({
    id: s.id,
    occurred_at: s.occurredAt,
    status: s.status,
    description: s.description,
    location: s.location,
  }));
  return { tracking_number: trackingNumber, events };
}

function label(state: SimState, p: SimPurchase) {
  return {
    id: p.id,
    object: 'label',
    reference: p.reference,
    service: p.service,
    tracking_number: p.trackingNumber,
    status: p.cancelled ? 'voided' : 'created',
    is_return: p.isReturn === true,
    scanned: state.scansOf(p.trackingNumber).length > 0,
    created_at: p.createdAt,
  };
}

function address(body: Record<string, unknown>, key: string): Address {
  const a = requiredObject(body, key);
  const line2 = optionalString(a, 'line2', `${key}.line2`);
  return {
    name: requiredString(a, 'name', `${key}.name`),
    line1: requiredString(a, 'line1', `${key}.line1`),
    ...(line2 ? { line2 } : {}),
    city: requiredString(a, 'city', `${key}.city`),
    postcode: requiredString(a, 'postcode', `${key}.postcode`),
    country: countryCode(a, 'country', `${key}.country`),
  };
}

function parcelOf(body: Record<string, unknown>): Parcel {
  const p = requiredObject(body, 'parcel');
  return {
    weight_g: positiveInteger(p, 'weight_g', 'parcel.weight_g'),
    length_mm: positiveInteger(p, 'length_mm', 'parcel.length_mm'),
    width_mm: positiveInteger(p, 'width_mm', 'parcel.width_mm'),
    height_mm: positiveInteger(p, 'height_mm', 'parcel.height_mm'),
  };
}

function headerValue(req: SimRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Acme's collection fee, in GBP minor units. */
export const ACME_PICKUP_FEE = 350;

/** Manifests and pickups Acme has made, by its own id. */
const manifested = new WeakMap<SimState, Map<string, string>>();
const pickups = new WeakMap<SimState, Map<string, { reference: string; cancelled: boolean }>>();

function mapOf<V>(store: WeakMap<SimState, Map<string, V>>, state: SimState): Map<string, V> {
  let m = store.get(state);
  if (!m) store.set(state, (m = new Map()));
  return m;
}

/** A manifest of Acme labels: each must be Acme's, not voided, and on no manifest yet. */
async function manifest(state: SimState, req: SimRequest): Promise<SimReply> {
  const body = jsonObject(req);
  const reference = requiredString(body, 'reference');
  const from = address(body, 'from');
  const numbers = body.tracking_numbers;
  if (!Array.isArray(numbers) || numbers.length === 0 || !numbers.every((n) => typeof n === 'string')) {
    throw new SimHttpError(422, 'invalid_request', 'tracking_numbers must be a non-empty list of strings.');
  }
  const onForm = mapOf(manifested, state);
  for (const n of numbers as string[]) {
    const p = state.purchaseByTracking(n);
    if (!p || p.carrier !== CODE) throw new SimHttpError(422, 'label_not_found', `No label with tracking number ${n}.`);
    if (p.cancelled) throw new SimHttpError(422, 'label_voided', `Label ${n} is voided.`);
    const on = onForm.get(n);
    if (on !== undefined && on !== reference) throw new SimHttpError(422, 'already_manifested', `Label ${n} is on manifest ${on} already.`);
  }
  for (const n of numbers as string[]) onForm.set(n, reference);
  const id = `man_${reference}`;
  const pdf = await manifestPdf({ title: 'ACME EXPRESS MANIFEST', number: id, from: [from.name, from.line1, `${from.city} ${from.postcode} ${from.country}`], trackingNumbers: numbers as string[] });
  return { status: 201, body: { id, object: 'manifest', reference, tracking_numbers: numbers, document: { format: 'pdf', content_base64: Buffer.from(pdf).toString('base64') } } };
}

/** A collection at an address between two instants, with Acme's flat fee. */
function pickup(state: SimState, req: SimRequest): SimReply {
  const body = jsonObject(req);
  const reference = requiredString(body, 'reference');
  address(body, 'address');
  const readyAt = Date.parse(requiredString(body, 'ready_at'));
  const closeAt = Date.parse(requiredString(body, 'close_at'));
  if (!Number.isFinite(readyAt) || !Number.isFinite(closeAt) || readyAt >= closeAt) {
    throw new SimHttpError(422, 'invalid_window', 'ready_at must be an instant before close_at.');
  }
  positiveInteger(body, 'parcel_count', 'parcel_count');
  const booked = mapOf(pickups, state);
  const id = `pu_${reference}`;
  booked.set(id, { reference, cancelled: false });
  return { status: 201, body: { id, object: 'pickup', reference, status: 'scheduled', fee: { amount: ACME_PICKUP_FEE, currency: 'GBP' } } };
}

function cancelPickup(state: SimState, req: SimRequest): SimReply {
  const id = req.params[0];
  const p = mapOf(pickups, state).get(id);
  if (!p) throw new SimHttpError(404, 'pickup_not_found', `No pickup ${id}.`);
  p.cancelled = true;
  return { status: 200, body: { id, object: 'pickup', reference: p.reference, status: 'cancelled' } };
}
