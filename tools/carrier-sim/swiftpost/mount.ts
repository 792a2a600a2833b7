import type { Address, Parcel, ScanStatus } from '../../../domain/index.js';
import { quoteServices, swiftpostDefinition } from '../../../carriers/index.js';
import { eligibleService } from '../carrier-rules.js';
import { SimHttpError, type SimApi, type SimReply, type SimRequest } from '../sim-types.js';
import type { SimPurchase, SimState } from '../state.js';
import { countryCode, jsonObject, optionalString, positiveInteger, requiredObject, requiredString } from '../validate.js';

const CODE = 'swiftpost';
const BASE = '/swiftpost/api';

const EVENT_CODES: Record<ScanStatus, string> = {
  in_transit: 'IN_TRANSIT',
  out_for_delivery: 'OUT_FOR_DELIVERY',
  delivered: 'DELIVERED',
  exception: 'EXCEPTION',
};

/**
 * SwiftPost's consignment API as the simulator plays it: camelCase JSON, errors as
 * `{"errors": [{"errorCode", "detail"}]}`, events newest first, and no idempotency at all: every
 * booking request books a new consignment, even with a reference seen before.
 */
export function mountSimulator(state: SimState): SimApi {
  return {
    code: CODE,
    isCarrier: true,
    // The tracking bench's labels (POST /_sim/parcels): bought without a request, scanned by their itinerary.
    createParcel: (_createdAt, reference) => state.addPurchase({ carrier: CODE, reference, service: 'swiftpost_standard' }, swiftpostDefinition).trackingNumber,
    operations: ['quote', 'buy', 'lookup', 'cancel', 'track'],
    errorBody: (code, message) => ({ errors: [{ errorCode: code.toUpperCase(), detail: message }] }),
    routes: [
      { method: 'POST', pattern: route('/rates'), operation: 'quote', handle: rates },
      { method: 'POST', pattern: route('/consignments'), operation: 'buy', handle: (req) => book(state, req) },
      { method: 'GET', pattern: route('/consignments'), operation: 'lookup', handle: (req) => lookup(state, req) },
      { method: 'POST', pattern: route('/consignments/([^/]+)/cancel'), operation: 'cancel', handle: (req) => cancel(state, req) },
      { method: 'GET', pattern: route('/consignments/([^/]+)/events'), operation: 'track', handle: (req) => events(state, req) },
    ],
  };
}

function route(path: string): RegExp {
  return new RegExp(`^${BASE}${path}$`);
}

function rates(req: SimRequest): SimReply {
  const body = jsonObject(req);
  const sender = address(body, 'sender');
  const recipient = address(body, 'recipient');
  const rates = quoteServices([swiftpostDefinition], item(body), sender, recipient).map((q) => ({
    productCode: q.service.code,
    priceMinor: q.net,
    currency: 'GBP',
    transitDays: q.service.estimatedDeliveryDays,
  }));
  return { status: 200, body: { rates } };
}

function book(state: SimState, req: SimRequest): SimReply {
  const body = jsonObject(req);
  const sender = address(body, 'sender');
  const recipient = address(body, 'recipient');
  const parcel = item(body);
  const reference = requiredString(body, 'customerReference');
  const productCode = requiredString(body, 'productCode');
  const service = eligibleService(swiftpostDefinition, productCode, parcel, sender, recipient, {
    unknown: 'INVALID_PRODUCT',
    unavailable: 'PRODUCT_NOT_AVAILABLE',
  });
  const purchase = state.addPurchase(
    { carrier: CODE, reference, service: service.code, from: sender, to: recipient, parcel },
    swiftpostDefinition,
  );
  return { status: 201, body: { consignment: consignment(purchase) } };
}

function lookup(state: SimState, req: SimRequest): SimReply {
  const reference = req.query.get('customerReference');
  const found = reference === null ? state.purchases.filter((p) => p.carrier === CODE) : state.purchasesByReference(reference, CODE);
  const consignments = found.map(consignment);
  return { status: 200, body: { consignments } };
}

function cancel(state: SimState, req: SimRequest): SimReply {
  const purchase = byNumber(state, req.params[0]);
  if (!purchase.cancelled && state.scansOf(purchase.trackingNumber).length > 0) {
    throw new SimHttpError(422, 'ALREADY_IN_NETWORK', `Consignment ${purchase.trackingNumber} is already in the network and cannot be cancelled.`);
  }
  purchase.cancelled = true;
  return { status: 200, body: { consignment: consignment(purchase) } };
}

function events(state: SimState, req: SimRequest): SimReply {
  const purchase = byNumber(state, req.params[0]);
  const events = state
    .scansOf(purchase.trackingNumber)
    .map((s) => ({
      eventId: s.id,
      eventTime: s.occurredAt,
      eventCode: EVENT_CODES[s.status],
      eventDescription: s.description,
      depot: s.location && { town: s.location.city, postcode: s.location.postcode, countryCode: s.location.country },
    }))
    .reverse();
  return { status: 200, body: { consignmentNumber: purchase.trackingNumber, events } };
}

function byNumber(state: SimState, consignmentNumber: string): SimPurchase {
  const purchase = state.purchaseByTracking(consignmentNumber);
  if (!purchase || purchase.carrier !== CODE) {
    throw new SimHttpError(404, 'CONSIGNMENT_NOT_FOUND', `No consignment ${consignmentNumber}.`);
  }
  return purchase;
}

function consignment(p: SimPurchase) {
  return {
    consignmentNumber: p.trackingNumber,
    customerReference: p.reference,
    productCode: p.service,
    state: p.cancelled ? 'CANCELLED' : 'BOOKED',
    bookedAt: p.createdAt,
  };
}

function address(body: Record<string, unknown>, key: string): Address {
  const a = requiredObject(body, key);
  const line2 = optionalString(a, 'addressLine2', `${key}.addressLine2`);
  return {
    name: requiredString(a, 'contactName', `${key}.contactName`),
    line1: requiredString(a, 'addressLine1', `${key}.addressLine1`),
    ...(line2 ? { line2 } : {}),
    city: requiredString(a, 'town', `${key}.town`),
    postcode: requiredString(a, 'postcode', `${key}.postcode`),
    country: countryCode(a, 'countryCode', `${key}.countryCode`),
  };
}

function item(body: Record<string, unknown>): Parcel {
  const i = requiredObject(body, 'item');
  return {
    weight_g: positiveInteger(i, 'weightGrams', 'item.weightGrams'),
    length_mm: positiveInteger(i, 'lengthMm', 'item.lengthMm'),
    width_mm: positiveInteger(i, 'widthMm', 'item.widthMm'),
    height_mm: positiveInteger(i, 'heightMm', 'item.heightMm'),
  };
}
