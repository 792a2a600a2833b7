import { ourUpsServiceCode } from '../../../carriers/ups/services.js';
import type { ScanStatus } from '../../../domain/index.js';
import { SIMULATOR_CREDENTIALS } from '../credentials.js';
import { warmUpLabelFiles } from '../label-files.js';
import type { SimApi } from '../sim-types.js';
import type { SimState } from '../state.js';
import { UPS_ERROR, UPS_ROUTES, createUpsSimulator, type UpsSimOperation } from './index.js';
import { benchPackage, trackAlertControlRoutes } from './track-alert-control.js';

/** UPS's operations under the names faults use for every carrier. */
const FAULT_OPERATION: Record<UpsSimOperation, string> = {
  token: 'token',
  rate: 'quote',
  ship: 'buy',
  void: 'cancel',
  recover: 'lookup',
  reference: 'lookup',
  track: 'track',
  pickup: 'pickup',
  pickup_cancel: 'pickup_cancel',
  pickup_pending: 'pickup_pending',
  address: 'address',
  subscribe: 'subscribe',
};

/** A `/_sim/scans` status as a UPS activity (type and code as UPS's Tracking appendix lists them). */
const SCAN_TYPES: Record<ScanStatus, { type: string; code: string }> = {
  in_transit: { type: 'I', code: 'DP' },
  out_for_delivery: { type: 'O', code: 'OT' },
  delivered: { type: 'D', code: 'FS' },
  exception: { type: 'X', code: 'RS' },
};

/**
 * The UPS simulator mounted in the shared one at `mount` (the module's `simulatorPath`: `<sim>/ups`
 * stands for `https://onlinetools.ups.com`): its purchases, voids and scans are the control API's too.
 */
export function mountSimulator(state: SimState, mount: string): SimApi {
  const ups = createUpsSimulator({
    ...SIMULATOR_CREDENTIALS.ups,
    extraScans: (trackingNumber) =>
      // Every scan, those still to come too: UPS reports each once its time has come, and Track Alert plans its pushes.
      state.scansOf(trackingNumber, Infinity).map((s) => ({
        at: Date.parse(s.occurredAt),
        ...SCAN_TYPES[s.status],
        description: s.description,
        city: s.location?.city ?? '',
        postalCode: s.location?.postcode ?? '',
      })),
    onPurchase: (pkg) =>
      state.purchases.push({
        id: state.newId('lbl'),
        carrier: 'ups',
        reference: pkg.references[0] ?? '',
        trackingNumber: pkg.trackingNumber,
        service: ourUpsServiceCode(pkg.serviceCode) ?? pkg.serviceCode,
        cancelled: false,
        createdAt: new Date(pkg.createdAt).toISOString(),
      }),
    onVoid: (pkg) => {
      const purchase = state.purchaseByTracking(pkg.trackingNumber);
      if (purchase) purchase.cancelled = true;
    },
  });
  // A scan added through the control API is an event of the package: Track Alert pushes it.
  state.scanListeners.push((scan) => {
    if (scan.carrier === 'ups') ups.trackAlert.notify(scan.trackingNumber);
  });
  const routes: SimApi['routes'] = UPS_ROUTES.map((route) => ({
    method: route.method,
    pattern: new RegExp(`^${mount}${route.pattern.source.slice(1)}`),
    operation: FAULT_OPERATION[route.operation],
    async handle(req) {
      // A client asks for a token before it buys: the label renderer warms up off the purchase's path.
      if (route.operation === 'token') warmUpLabelFiles();
      const answer = await ups.respond({ ...req, path: req.path.slice(mount.length) });
      return answer ? { status: answer.status, body: answer.body } : { status: 404, body: UPS_ERROR('404', 'Not found') };
    },
  }));
  routes.push(...trackAlertControlRoutes(ups.trackAlert));
  return {
    code: 'ups',
    isCarrier: true,
    createParcel: (createdAt, reference) => benchPackage(ups.packages, state, createdAt, reference),
    operations: [...new Set(Object.values(FAULT_OPERATION))],
    routes,
    errorBody: (code, message) => UPS_ERROR(code, message),
    // UPS documents its 429 without Retry-After.
    sendsRetryAfter: false,
    faultTexts(req) {
      if (!req.path.endsWith('/labels/v1/recovery')) return [];
      let trackingNumber: unknown;
      try {
        trackingNumber = (JSON.parse(req.rawBody) as { LabelRecoveryRequest?: { TrackingNumber?: unknown } }).LabelRecoveryRequest?.TrackingNumber;
      } catch {
        return [];
      }
      const pkg = typeof trackingNumber === 'string' ? ups.packages.get(trackingNumber) : undefined;
      return pkg ? [...pkg.references, ...pkg.art.to] : [];
    },
  };
}
