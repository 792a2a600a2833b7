import { ourFedexServiceCode } from '../../../carriers/fedex/services.js';
import type { ScanStatus } from '../../../domain/index.js';
import { SIMULATOR_CREDENTIALS } from '../credentials.js';
import { FEDEX_ERROR, FEDEX_ROUTES, createFedexSimulator, type FedexSimOperation } from './simulator.js';
import { fedexSchemaCheck, warmUpFedexSchemas } from './schema-check.js';
import { warmUpLabelFiles } from '../label-files.js';
import type { SimApi } from '../sim-types.js';
import type { SimState } from '../state.js';
import { trackingNumber } from './state.js';

/** FedEx's operations under the names faults use for every carrier. */
const FAULT_OPERATION: Record<FedexSimOperation, string> = {
  token: 'token',
  rate: 'quote',
  ship: 'buy',
  cancel: 'cancel',
  track: 'track',
  reference: 'lookup',
  pickup: 'pickup',
  pickup_cancel: 'pickup_cancel',
};

/** A `/_sim/scans` status as a FedEx scan event (its Track Service Scan Codes). */
const EVENT_TYPES: Record<ScanStatus, string> = { in_transit: 'DP', out_for_delivery: 'OD', delivered: 'DL', exception: 'DE' };

/**
 * The FedEx simulator mounted in the shared one at `mount` (the module's `simulatorPath`: `<sim>/fedex`
 * stands for `https://apis.fedex.com`): its purchases, cancels and scans are the control API's too.
 */
export function mountSimulator(state: SimState, mount: string): SimApi {
  warmUpFedexSchemas();
  const credentials = SIMULATOR_CREDENTIALS.fedex;
  const fedex = createFedexSimulator({
    ...(credentials ? { clientId: credentials.clientId, clientSecret: credentials.clientSecret, accountNumber: credentials.accountNumber } : {}),
    validate: fedexSchemaCheck,
    extraScans: (trackingNumber) =>
      state.scansOf(trackingNumber, Infinity).map((s) => ({
        at: Date.parse(s.occurredAt),
        eventType: EVENT_TYPES[s.status],
        description: s.description,
        city: s.location?.city ?? '',
        postalCode: s.location?.postcode ?? '',
      })),
    onPurchase: (pkg) =>
      state.purchases.push({
        id: state.newId('lbl'),
        carrier: 'fedex',
        reference: pkg.references[0] ?? '',
        trackingNumber: pkg.trackingNumber,
        service: ourFedexServiceCode(pkg.serviceType) ?? pkg.serviceType,
        cancelled: false,
        createdAt: new Date(pkg.createdAt).toISOString(),
      }),
    onCancel: (pkg) => {
      const purchase = state.purchaseByTracking(pkg.trackingNumber);
      if (purchase) purchase.cancelled = true;
    },
  });
  const routes: SimApi['routes'] = FEDEX_ROUTES.map((route) => ({
    method: route.method,
    pattern: new RegExp(`^${mount}${route.path.replace(/\//g, '\\/')}$`),
    operation: FAULT_OPERATION[route.operation],
    async handle(req) {
      // A client asks for a token before it buys: the label renderer warms up off the purchase's path.
      if (route.operation === 'token') warmUpLabelFiles();
      const answer = await fedex.respond({ method: req.method, path: req.path.slice(mount.length), headers: req.headers, rawBody: req.rawBody });
      return answer ? { status: answer.status, body: answer.body } : { status: 404, body: FEDEX_ERROR('NOT.FOUND.ERROR', 'Not found') };
    },
  }));
  let benchSerial = 5_000_000_000;
  return {
    code: 'fedex',
    isCarrier: true,
    // The tracking bench's labels (POST /_sim/parcels): none of the schedule's scans, only their itinerary's.
    createParcel(createdAt, reference) {
      const number = trackingNumber(++benchSerial);
      const place = { city: 'Memphis', postalCode: '38118', countryCode: 'US' };
      const art = { carrier: 'FedEx', service: 'FEDEX GROUND', trackingNumber: number, from: ['BENCH SENDER'], to: ['BENCH RECIPIENT'], weight: '3 LBS', reference };
      fedex.packages.set(number, { trackingNumber: number, references: [reference], serviceType: 'FEDEX_GROUND', account: '', createdAt, cancelledAt: null, origin: place, destination: place, art, schedule: [] });
      state.purchases.push({ id: state.newId('lbl'), carrier: 'fedex', reference, trackingNumber: number, service: 'fedex_ground', cancelled: false, createdAt: new Date(createdAt).toISOString() });
      return number;
    },
    operations: [...new Set(Object.values(FAULT_OPERATION))],
    routes,
    errorBody: (code, message) => FEDEX_ERROR(code, message),
  };
}
