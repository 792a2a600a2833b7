import { SCAN_STATUSES, type ScanStatus } from '../../domain/index.js';
import { isRecord } from '../../carriers/index.js';
import { listAuthorizations } from './cardpay-api.js';
import { createParcels } from './parcels.js';
import type { FaultStore } from './faults.js';
import { SimHttpError, type SimApi, type SimReply, type SimRequest } from './sim-types.js';
import type { SimState } from './state.js';
import { jsonObject, optionalString, requiredString } from './validate.js';

const DEFAULT_DESCRIPTIONS: Record<ScanStatus, string> = {
  in_transit: 'Parcel collected and in transit',
  out_for_delivery: 'Out for delivery',
  delivered: 'Delivered',
  exception: 'Delivery exception',
};

/** The simulator's own API under `/_sim`, for tests and developers: faults, scans, records. */
export function createControlApi(state: SimState, faults: FaultStore, apis: readonly SimApi[]): SimApi {
  const carriers = apis.filter((a) => a.isCarrier).map((a) => a.code);
  const routes: SimApi['routes'] = [
    { method: 'POST', pattern: /^\/_sim\/faults$/, handle: (req) => ({ status: 201, body: faults.add(jsonObject(req)) }) },
    { method: 'GET', pattern: /^\/_sim\/faults$/, handle: () => ({ status: 200, body: { data: faults.list() } }) },
    {
      method: 'DELETE',
      pattern: /^\/_sim\/faults$/,
      handle: (req) => ({ status: 200, body: { deleted: faults.clear(req.query.get('match') ?? undefined) } }),
    },
    { method: 'GET', pattern: /^\/_sim\/carriers$/, handle: () => ({ status: 200, body: { data: carriers } }) },
    { method: 'GET', pattern: /^\/_sim\/purchases$/, handle: (req) => purchases(state, req) },
    { method: 'GET', pattern: /^\/_sim\/stats$/, handle: () => stats(state) },
    { method: 'POST', pattern: /^\/_sim\/scans$/, handle: (req) => addScan(state, req) },
    { method: 'POST', pattern: /^\/_sim\/parcels$/, handle: (req) => createParcels(state, apis, req) },
    {
      method: 'GET',
      pattern: /^\/_sim\/card-charges$/,
      handle: (req) => ({ status: 200, body: { data: listAuthorizations(state, req.query.get('reference')) } }),
    },
  ];
  return {
    code: '_sim',
    isCarrier: false,
    operations: [],
    routes,
    errorBody: (code, message) => ({ error: { code, message } }),
  };
}

function purchases(state: SimState, req: SimRequest): SimReply {
  const reference = req.query.get('reference');
  const carrier = req.query.get('carrier');
  const found = reference === null ? state.purchases.filter((p) => carrier === null || p.carrier === carrier) : state.purchasesByReference(reference, carrier ?? undefined);
  const data = found.map((p) => ({
    carrier: p.carrier,
    reference: p.reference,
    tracking_number: p.trackingNumber,
    service: p.service,
    cancelled: p.cancelled,
    created_at: p.createdAt,
  }));
  return { status: 200, body: { data } };
}

function stats(state: SimState): SimReply {
  const buyRequests: Record<string, number> = {};
  const buyTimestamps: Record<string, number[]> = {};
  for (const [carrier, stamps] of state.buyTimestamps) {
    buyRequests[carrier] = stamps.length;
    buyTimestamps[carrier] = [...stamps];
  }
  const calls: Record<string, Record<string, number>> = {};
  for (const [key, n] of state.calls) {
    const [carrier, operation] = key.split(' ');
    (calls[carrier] ??= {})[operation] = n;
  }
  return { status: 200, body: { buy_requests: buyRequests, buy_timestamps: buyTimestamps, calls } };
}

function addScan(state: SimState, req: SimRequest): SimReply {
  const body = jsonObject(req);
  const trackingNumber = requiredString(body, 'tracking_number');
  const status = body.status;
  if (!(SCAN_STATUSES as readonly unknown[]).includes(status)) {
    throw new SimHttpError(400, 'invalid_request', `status must be one of ${SCAN_STATUSES.join(', ')}.`);
  }
  const purchase = state.purchaseByTracking(trackingNumber);
  if (!purchase) throw new SimHttpError(404, 'not_found', `No simulated purchase has tracking number ${trackingNumber}.`);
  const scan = state.addScan({
    carrier: purchase.carrier,
    trackingNumber,
    status: status as ScanStatus,
    description: optionalString(body, 'description') ?? DEFAULT_DESCRIPTIONS[status as ScanStatus],
    location: location(body.location),
  });
  return {
    status: 201,
    body: {
      id: scan.id,
      carrier: scan.carrier,
      tracking_number: scan.trackingNumber,
      status: scan.status,
      description: scan.description,
      location: scan.location,
      occurred_at: scan.occurredAt,
    },
  };
}

function location(value: unknown): { city: string; postcode: string; country: string } | null {
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) throw new SimHttpError(400, 'invalid_request', 'location must be an object or null.');
  // Lenient on purpose: a test that only cares about the town need not invent a postcode.
  return {
    city: optionalString(value, 'city', 'location.city') ?? '',
    postcode: optionalString(value, 'postcode', 'location.postcode') ?? '',
    country: (optionalString(value, 'country', 'location.country') ?? '').toUpperCase(),
  };
}
