import type { ScanStatus } from '../../../domain/index.js';
import type { SimApi } from '../sim-types.js';
import type { SimState } from '../state.js';
import { dhlExpressDefinition } from '../../../carriers/dhl-express/index.js';
import { SIMULATOR_SETTINGS } from '../credentials.js';
import { createDhlSimulator, DHL_ROUTES, dhlError, type DhlSimOperation } from './simulator.js';
import { compileDhlValidators, DHL_DOCUMENT_VALIDATION } from './validation.js';
import { serviceOf } from './operations.js';

/** DHL's operations under the names faults use for every carrier. */
const FAULT_OPERATION: Record<DhlSimOperation, string> = {
  rate: 'quote',
  ship: 'buy',
  track: 'track',
  reference: 'lookup',
  pickup: 'pickup',
  pickup_cancel: 'pickup_cancel',
};

/** A `/_sim/scans` status as a DHL checkpoint code (mapping-tracking.ts reads them back). */
const CHECKPOINTS: Record<ScanStatus, string> = { in_transit: 'AF', out_for_delivery: 'WC', delivered: 'OK', exception: 'NH' };

/**
 * The DHL Express simulator mounted in the shared one at `mount` (the module's `simulatorPath`): its
 * purchases and scans are the control API's too, and every request and answer is checked against the
 * document's schemas.
 */
export function mountSimulator(state: SimState, mount: string): SimApi {
  const code = dhlExpressDefinition.code;
  const settings = SIMULATOR_SETTINGS[code];
  compileDhlValidators();
  const dhl = createDhlSimulator({
    apiKey: settings.API_KEY,
    apiSecret: settings.API_SECRET,
    accountNumber: settings.ACCOUNT_NUMBER,
    validate: DHL_DOCUMENT_VALIDATION,
    extraCheckpoints: (trackingNumber) =>
      state.scansOf(trackingNumber).map((s) => ({
        at: Date.parse(s.occurredAt),
        typeCode: CHECKPOINTS[s.status],
        description: s.description,
        area: s.location ? `${s.location.city.toUpperCase()}-${s.location.country}` : '',
      })),
    onPurchase: (shipment) =>
      state.purchases.push({
        id: state.newId('lbl'),
        carrier: code,
        reference: shipment.references[0] ?? '',
        trackingNumber: shipment.trackingNumber,
        service: serviceOf(shipment),
        cancelled: false,
        createdAt: new Date(shipment.createdAt).toISOString(),
      }),
  });
  const routes: SimApi['routes'] = DHL_ROUTES.map((route) => ({
    method: route.method,
    pattern: new RegExp(`^${mount}${route.pattern.source.slice(1)}`),
    operation: FAULT_OPERATION[route.operation],
    async handle(req) {
      const answer = await dhl.respond({ ...req, path: req.path.slice(mount.length) });
      return answer ? { status: answer.status, body: answer.body } : { status: 404, body: dhlError(404, 'Not found', 'No such resource') };
    },
  }));
  return {
    code,
    isCarrier: true,
    operations: [...new Set(Object.values(FAULT_OPERATION))],
    routes,
    // The fault's code is the problem's title, as DHL titles its problems ("Validation error").
    errorBody: (code, message, status) => dhlError(status, code, message),
  };
}
