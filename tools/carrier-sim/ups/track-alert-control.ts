import { SimHttpError, type SimRoute } from '../sim-types.js';
import type { SimState } from '../state.js';
import { jsonObject, requiredString } from '../validate.js';
import { SIMULATOR_CREDENTIALS } from '../credentials.js';
import { trackingNumber, type SimPackage } from './state.js';
import type { TrackAlert } from './track-alert.js';

/**
 * The shared simulator's control of UPS Track Alert: where it pushes (what "Manage Webhook
 * Credentials" registers with UPS) and what it pushed.
 * `POST /_sim/ups/track-alert` `{url, token_url, client_id, client_secret}` sets the webhook (`{}`
 * removes it); `GET` answers the counts.
 */
export function trackAlertControlRoutes(trackAlert: TrackAlert): SimRoute[] {
  const stats = () => ({ status: 200, body: trackAlert.stats() });
  return [
    { method: 'GET', pattern: /^\/_sim\/ups\/track-alert$/, handle: stats },
    {
      method: 'POST',
      pattern: /^\/_sim\/ups\/track-alert$/,
      handle(req) {
        const body = jsonObject(req);
        if (!Object.keys(body).length) {
          trackAlert.setWebhook(undefined);
          return stats();
        }
        const url = requiredString(body, 'url');
        const tokenUrl = requiredString(body, 'token_url');
        for (const u of [url, tokenUrl]) if (!/^https?:\/\//.test(u)) throw new SimHttpError(400, 'invalid_request', `${u} is not an http(s) URL.`);
        trackAlert.setWebhook({ url, tokenUrl, clientId: requiredString(body, 'client_id'), clientSecret: requiredString(body, 'client_secret') });
        return stats();
      },
    },
  ];
}

/** Bench packages' serials start here, far from the purchases' own. */
let benchSerial = 5_000_000;

/**
 * A UPS Ground package bought without a Ship request, for the tracking bench: no scans of the
 * simulator's schedule, only those of its itinerary (state.itineraries), which `extraScans` reads.
 */
export function benchPackage(packages: Map<string, SimPackage>, state: SimState, createdAt: number, reference: string): string {
  const number = trackingNumber(SIMULATOR_CREDENTIALS.ups.accountNumber, '03', ++benchSerial);
  packages.set(number, {
    trackingNumber: number,
    references: [reference],
    serviceCode: '03',
    createdAt,
    voidedAt: null,
    originCountry: 'US',
    total: { currency: 'USD', published: '12.00', negotiated: null },
    billingWeight: { unit: 'LBS', value: '3.0' },
    art: { carrier: 'UPS', service: 'UPS GROUND', trackingNumber: number, from: ['BENCH SENDER'], to: ['BENCH RECIPIENT'], weight: '3 LBS', reference },
    schedule: [],
  });
  state.purchases.push({ id: state.newId('lbl'), carrier: 'ups', reference, trackingNumber: number, service: 'ups_ground', cancelled: false, createdAt: new Date(createdAt).toISOString() });
  return number;
}
