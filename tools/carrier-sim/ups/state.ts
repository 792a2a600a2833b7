import type { LabelArt } from '../label-art.js';

/** The simulated UPS account's data: issued tokens and bought packages, with their scans over time. */

export interface SimScanStep {
  /** Milliseconds after the label was created. */
  afterMs: number;
  type: string;
  code: string;
  description: string;
  city: string;
  postalCode: string;
}

/** A package walks through pickup, transit, an exception, out for delivery and delivery. */
export const DEFAULT_SCAN_SCHEDULE: SimScanStep[] = [
  { afterMs: 60 * 60_000, type: 'P', code: 'PU', description: 'Pickup Scan', city: 'Timonium', postalCode: '21093' },
  { afterMs: 6 * 60 * 60_000, type: 'I', code: 'DP', description: 'Departed from Facility', city: 'Baltimore', postalCode: '21226' },
  { afterMs: 20 * 60 * 60_000, type: 'X', code: 'RS', description: 'The receiver was not available for delivery. We will make a second attempt.', city: 'Atlanta', postalCode: '30336' },
  { afterMs: 26 * 60 * 60_000, type: 'O', code: 'OT', description: 'Out For Delivery Today', city: 'Alpharetta', postalCode: '30005' },
  { afterMs: 30 * 60 * 60_000, type: 'D', code: 'FS', description: 'DELIVERED', city: 'Alpharetta', postalCode: '30005' },
];

export interface SimPackage {
  trackingNumber: string;
  references: string[];
  serviceCode: string;
  createdAt: number;
  voidedAt: number | null;
  originCountry: string;
  total: { currency: string; published: string; negotiated: string | null };
  billingWeight: { unit: 'LBS' | 'KGS'; value: string };
  /** What its label shows, to draw it again on recovery. */
  art: LabelArt;
  /** Its own scans over time instead of the simulator's schedule (the tracking bench's parcels walk a week). */
  schedule?: SimScanStep[];
}

/** A scan from outside the schedule (the shared simulator's `/_sim/scans`), in UPS's terms. */
export interface SimExtraScan {
  at: number;
  type: string;
  code: string;
  description: string;
  city: string;
  postalCode: string;
}

/** UPS-like 1Z numbers: 1Z, the account, the service, seven digits and a check digit (18 characters). */
export function trackingNumber(account: string, serviceCode: string, serial: number): string {
  const body = `${account.toUpperCase()}${serviceCode}${String(serial % 10_000_000).padStart(7, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    const value = /\d/.test(ch) ? Number(ch) : (ch.charCodeAt(0) - 63) % 10;
    sum += i % 2 === 1 ? value * 2 : value;
  }
  return `1Z${body}${(10 - (sum % 10)) % 10}`;
}

/** Money as UPS writes it: two decimals. */
export const money = (cents: number) => (cents / 100).toFixed(2);

/** Each scan that has happened by `now`, oldest first; a voided label stops at its void. */
export function scansAt(pkg: SimPackage, schedule: SimScanStep[], now: number, extra: readonly SimExtraScan[] = []) {
  const events: SimExtraScan[] = [
    ...extra.filter((e) => e.at <= now),
    { at: pkg.createdAt, type: 'M', code: 'MP', description: 'Shipper created a label, UPS has not received the package yet.', city: '', postalCode: '' },
  ];
  for (const step of pkg.schedule ?? schedule) {
    const at = pkg.createdAt + step.afterMs;
    if (at > now || (pkg.voidedAt !== null && at > pkg.voidedAt)) continue;
    events.push({ at, ...step });
  }
  if (pkg.voidedAt !== null && pkg.voidedAt <= now) {
    events.push({ at: pkg.voidedAt, type: 'MV', code: 'MV', description: 'Voided Information Received', city: '', postalCode: '' });
  }
  return events.sort((a, b) => a.at - b.at);
}

/** Whether UPS has physically handled the package by `now` (anything past the label's creation). */
export function isScanned(pkg: SimPackage, schedule: SimScanStep[], now: number, extra: readonly SimExtraScan[] = []): boolean {
  return scansAt(pkg, schedule, now, extra).some((e) => e.type !== 'M' && e.type !== 'MV');
}
