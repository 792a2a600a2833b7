import { SERVICE_NAMES } from './rating.js';
import type { FedexBooks } from './shipping.js';
import { scansAt, type FedexSimPackage } from './state.js';

/** The FedEx simulator's Basic Integrated Visibility answers: by tracking number and by reference. */

const STATUS_WORDS: Record<string, string> = { OC: 'Label created', PU: 'Picked up', DP: 'In transit', AR: 'In transit', IT: 'In transit', OD: 'On the way', DL: 'Delivered', DE: 'Delivery exception', CA: 'Cancelled' };

function trackResult(books: FedexBooks, pkg: FedexSimPackage) {
  const events = scansAt(pkg, books.schedule, books.clock(), books.extraScans(pkg.trackingNumber)).reverse(); // newest first, as FedEx lists them
  const scanEvents = events.map((e) => ({
    date: new Date(e.at).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
    eventType: e.eventType,
    eventDescription: e.description,
    derivedStatusCode: e.eventType,
    derivedStatus: STATUS_WORDS[e.eventType] ?? e.description,
    scanLocation: { city: e.city, postalCode: e.postalCode, countryCode: e.city ? pkg.origin.countryCode : '' },
  }));
  const latest = events[0]!;
  return {
    trackingNumberInfo: { trackingNumber: pkg.trackingNumber, carrierCode: pkg.serviceType.includes('GROUND') ? 'FDXG' : 'FDXE' },
    additionalTrackingInfo: { packageIdentifiers: [{ type: 'CUSTOMER_REFERENCE', value: pkg.references }] },
    serviceDetail: { type: pkg.serviceType, description: SERVICE_NAMES[pkg.serviceType] },
    latestStatusDetail: { code: latest.eventType, derivedCode: latest.eventType, statusByLocale: STATUS_WORDS[latest.eventType] ?? latest.description, description: latest.description },
    scanEvents,
  };
}

/** Track by number: an unknown number is an error inside the result, with 200, as FedEx answers a batch. */
export function track(books: FedexBooks, body: any): [number, unknown] {
  const results = (body.trackingInfo as any[]).map((info) => {
    const number: string = info.trackingNumberInfo.trackingNumber;
    const pkg = books.packages.get(number);
    const result = pkg
      ? trackResult(books, pkg)
      : { trackingNumberInfo: { trackingNumber: number }, error: { code: 'TRACKING.TRACKINGNUMBER.NOTFOUND', message: 'Tracking number cannot be found. Please correct the tracking number and try again.' } };
    return { trackingNumber: number, trackResults: [result] };
  });
  return [200, { transactionId: 'sim-fedex', output: { completeTrackResults: results } }];
}

/** Track by reference: the account's shipments with that customer reference, shipped in the date range. */
export function reference(books: FedexBooks, body: any): [number, unknown] {
  const info = body.referencesInformation;
  const day = (at: number) => new Date(at).toISOString().slice(0, 10);
  const matches = info.accountNumber === books.account
    ? [...books.packages.values()].filter((p) => p.references.includes(info.value) && day(p.createdAt) >= info.shipDateBegin && day(p.createdAt) <= info.shipDateEndDate)
    : [];
  if (!matches.length) {
    return [200, { transactionId: 'sim-fedex', output: { completeTrackResults: [], alerts: [{ code: 'TRACKING.DATA.NOTFOUND', alertType: 'WARNING', message: 'Tracking data unavailable' }] } }];
  }
  return [200, { transactionId: 'sim-fedex', output: { completeTrackResults: [{ trackingNumber: info.value, trackResults: matches.map((p) => trackResult(books, p)) }] } }];
}
