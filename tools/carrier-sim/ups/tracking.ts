import { UPS_ERROR } from './rating.js';
import type { UpsBooks } from './shipping.js';
import { scansAt, type SimPackage } from './state.js';

/** The UPS simulator's Tracking answers: by tracking number and by reference. */

const NOT_FOUND = UPS_ERROR('TW0001', 'Tracking Information Not Found');

function packageView(books: UpsBooks, pkg: SimPackage) {
  const activity = scansAt(pkg, books.schedule, books.clock(), books.extraScans(pkg.trackingNumber))
    .reverse() // newest first, as UPS sends them
    .map((e) => {
      const iso = new Date(e.at).toISOString();
      const date = iso.slice(0, 10).replace(/-/g, '');
      const time = iso.slice(11, 19).replace(/:/g, '');
      return {
        location: { address: { city: e.city, postalCode: e.postalCode, country: pkg.originCountry, countryCode: pkg.originCountry } },
        status: { type: e.type, description: e.description, code: e.code, statusCode: '000' },
        date,
        time,
        gmtDate: date,
        gmtOffset: '+00:00',
        gmtTime: time,
      };
    });
  return {
    trackingNumber: pkg.trackingNumber,
    currentStatus: activity[0]?.status,
    referenceNumber: pkg.references.map((number) => ({ type: 'PACKAGE', number })),
    activity,
    packageCount: 1,
  };
}

export function track(books: UpsBooks, number: string): [number, unknown] {
  const pkg = books.packages.get(number);
  if (!pkg) return [404, NOT_FOUND];
  return [200, { trackResponse: { shipment: [{ inquiryNumber: number, package: [packageView(books, pkg)] }] } }];
}

export function reference(books: UpsBooks, value: string, shipperNum: string | null): [number, unknown] {
  if (shipperNum !== null && shipperNum !== books.account) return [404, NOT_FOUND];
  const matches = [...books.packages.values()].filter((p) => p.references.includes(value));
  if (!matches.length) return [404, NOT_FOUND];
  return [200, { trackResponse: { shipment: [{ inquiryNumber: value, package: matches.map((p) => packageView(books, p)) }] } }];
}
