import { uspsServiceByMailClass } from '../../../carriers/usps/services.js';
import { USPS_INTERNATIONAL_SERVICES } from '../../../carriers/usps/mapping-international.js';
import { USPS_RETURN_MAIL_CLASS } from '../../../carriers/usps/mapping-returns.js';
import type { ScanStatus } from '../../../domain/index.js';
import { SIMULATOR_CREDENTIALS } from '../credentials.js';
import { warmUpLabelFiles } from '../label-files.js';
import type { SimApi } from '../sim-types.js';
import type { SimState } from '../state.js';
import { createUspsSimulator, uspsErrorBody, type UspsSimOperation } from './index.js';

/** USPS's paths, each with the name faults use for it (the same for every carrier). */
const ROUTES: ReadonlyArray<{ method: 'GET' | 'POST' | 'DELETE'; path: string; operation: UspsSimOperation; fault: string }> = [
  { method: 'POST', path: '/oauth2/v3/token', operation: 'token', fault: 'token' },
  { method: 'POST', path: '/payments/v3/payment-authorization', operation: 'payment', fault: 'payment' },
  { method: 'POST', path: '/prices/v3/base-rates/search', operation: 'rate', fault: 'quote' },
  { method: 'POST', path: '/prices/v3/extra-service-rates/search', operation: 'extra_rate', fault: 'quote' },
  { method: 'POST', path: '/international-prices/v3/base-rates/search', operation: 'intl_rate', fault: 'quote' },
  { method: 'POST', path: '/international-prices/v3/extra-service-rates/search', operation: 'intl_extra_rate', fault: 'quote' },
  { method: 'POST', path: '/labels/v3/label', operation: 'label', fault: 'buy' },
  { method: 'POST', path: '/labels/v3/return-label', operation: 'return_label', fault: 'buy' },
  { method: 'POST', path: '/international-labels/v3/international-label', operation: 'intl_label', fault: 'buy' },
  { method: 'POST', path: '/labels/v3/label-reprint', operation: 'reprint', fault: 'lookup' },
  { method: 'POST', path: '/international-labels/v3/international-label-reprint/[^/]+', operation: 'intl_reprint', fault: 'lookup' },
  { method: 'DELETE', path: '/labels/v3/label(?:/[^/]+)?', operation: 'cancel', fault: 'cancel' },
  { method: 'DELETE', path: '/international-labels/v3/international-label(?:/[^/]+)?', operation: 'cancel', fault: 'cancel' },
  { method: 'GET', path: '/tracking/v3/tracking/[^/]+', operation: 'track', fault: 'track' },
  { method: 'POST', path: '/scan-forms/v3/scan-form', operation: 'scanform', fault: 'scan_form' },
  { method: 'POST', path: '/pickup/v3/carrier-pickup', operation: 'pickup', fault: 'pickup' },
  { method: 'GET', path: '/pickup/v3/carrier-pickup/[^/]+', operation: 'pickup_read', fault: 'pickup_lookup' },
  { method: 'DELETE', path: '/pickup/v3/carrier-pickup/[^/]+', operation: 'pickup_cancel', fault: 'pickup_cancel' },
  { method: 'GET', path: '/addresses/v3/address', operation: 'address', fault: 'address' },
];

/** A `/_sim/scans` status as a USPS event (codes of Publication 199, as our mapping reads them). */
const SCAN_EVENTS: Record<ScanStatus, { code: string; type: string }> = {
  in_transit: { code: '10', type: 'Processed through USPS Facility' },
  out_for_delivery: { code: 'OF', type: 'Out for Delivery' },
  delivered: { code: '01', type: 'Delivered, Front Door/Porch' },
  exception: { code: '55', type: 'Delivery Attempted - No Secure Location Available' },
};

/** Our service code of a domestic, return or international mail class. */
function serviceOf(mailClass: string): string {
  const returned = Object.entries(USPS_RETURN_MAIL_CLASS).find(([, c]) => c === mailClass)?.[0];
  return uspsServiceByMailClass(mailClass)?.code ?? returned ?? USPS_INTERNATIONAL_SERVICES.find((s) => s.mailClass === mailClass)?.code ?? mailClass;
}

/**
 * The USPS simulator mounted in the shared one at `mount` (the module's `simulatorPath`: `<sim>/usps`
 * stands for `https://apis.usps.com`): its purchases, cancellations and scans are the control API's too.
 */
export function mountSimulator(state: SimState, mount: string): SimApi {
  const usps = createUspsSimulator({
    clientId: SIMULATOR_CREDENTIALS.usps.clientId,
    clientSecret: SIMULATOR_CREDENTIALS.usps.clientSecret,
    extraEvents: (trackingNumber) =>
      state.scansOf(trackingNumber).map((s) => ({
        at: Date.parse(s.occurredAt),
        ...SCAN_EVENTS[s.status],
        type: s.description || SCAN_EVENTS[s.status].type,
        city: (s.location?.city ?? '').toUpperCase(),
        zip: s.location?.postcode ?? '',
      })),
    onPurchase: (label) =>
      state.purchases.push({
        id: state.newId('lbl'),
        carrier: 'usps',
        reference: label.art.reference,
        trackingNumber: label.trackingNumber,
        service: serviceOf(label.mailClass),
        cancelled: false,
        createdAt: new Date(label.createdAt).toISOString(),
      }),
    onCancel: (label) => {
      const purchase = state.purchaseByTracking(label.trackingNumber);
      if (purchase) purchase.cancelled = true;
    },
  });
  const routes: SimApi['routes'] = ROUTES.map((route) => ({
    method: route.method,
    pattern: new RegExp(`^${mount}${route.path}$`),
    operation: route.fault,
    async handle(req) {
      // A client asks for a token before it buys: the label renderer warms up off the purchase's path.
      if (route.operation === 'token') warmUpLabelFiles();
      return (await usps.respond({ ...req, path: req.path.slice(mount.length) })) ?? { status: 404, body: uspsErrorBody(404, 'Resource Not Found') };
    },
  }));
  return {
    code: 'usps',
    isCarrier: true,
    operations: [...new Set(ROUTES.map((r) => r.fault))],
    routes,
    errorBody: (code, message, status) => ({
      apiVersion: 'v3',
      error: { code: String(status), message, errors: [{ status: String(status), code, title: message, detail: message }] },
    }),
  };
}
