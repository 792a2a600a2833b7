import type { ScanStatus } from '../../../domain/index.js';
import type { SimApi } from '../sim-types.js';
import type { SimState } from '../state.js';
import { createDhlSimulator, DHL_ROUTES, dhlError, type DhlSimOperation, type DhlSimulatorOptions } from './index.js';
import { serviceOf } from './operations.js';

/** Where DHL Express answers in the shared simulator: `<sim>/dhl-express` stands for `https://express.api.dhl.com/mydhlapi`. */
export const DHL_EXPRESS_MOUNT = '/dhl-express';

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

/** The DHL Express simulator mounted in the shared one: its purchases and scans are the control API's too. */
export function createDhlExpressApi(state: SimState, settings: Pick<DhlSimulatorOptions, 'apiKey' | 'apiSecret' | 'accountNumber' | 'validate'>): SimApi {
  const dhl = createDhlSimulator({
    ...settings,
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
        carrier: 'dhl_express',
        reference: shipment.references[0] ?? '',
        trackingNumber: shipment.trackingNumber,
        service: serviceOf(shipment),
        cancelled: false,
        createdAt: new Date(shipment.createdAt).toISOString(),
      }),
  });
  const routes: SimApi['routes'] = DHL_ROUTES.map((route) => ({
    method: route.method,
    pattern: new RegExp(`^${DHL_EXPRESS_MOUNT}${route.pattern.source.slice(1)}`),
    operation: FAULT_OPERATION[route.operation],
    async handle(req) {
      const answer = await dhl.respond({ ...req, path: req.path.slice(DHL_EXPRESS_MOUNT.length) });
      return answer ? { status: answer.status, body: answer.body } : { status: 404, body: dhlError(404, 'Not found', 'No such resource') };
    },
  }));
  return {
    code: 'dhl_express',
    isCarrier: true,
    operations: [...new Set(Object.values(FAULT_OPERATION))],
    routes,
    errorBody: (code, message, status) => dhlError(status, 'Simulated failure', `${code}: ${message}`),
  };
}
