import type { LabelArt } from '../label-art.js';

/** The simulated FedEx account's books: shipments with their scans over time, and pickups. */

export interface FedexScanStep {
  /** Milliseconds after the label was created. */
  afterMs: number;
  eventType: string;
  description: string;
  city: string;
  postalCode: string;
}

/** A scan from outside the schedule (the shared simulator's `/_sim/scans`, a test), in FedEx's terms. */
export interface FedexExtraScan extends Omit<FedexScanStep, 'afterMs'> {
  at: number;
}

/** A package walks through pickup, departure, an exception, out for delivery and delivery. */
export const DEFAULT_SCAN_SCHEDULE: FedexScanStep[] = [
  { afterMs: 60 * 60_000, eventType: 'PU', description: 'Picked up', city: 'TIMONIUM', postalCode: '21093' },
  { afterMs: 6 * 60 * 60_000, eventType: 'DP', description: 'Departed FedEx location', city: 'BALTIMORE', postalCode: '21226' },
  { afterMs: 20 * 60 * 60_000, eventType: 'DE', description: 'Delivery exception: customer not available or business closed', city: 'ATLANTA', postalCode: '30336' },
  { afterMs: 26 * 60 * 60_000, eventType: 'OD', description: 'On FedEx vehicle for delivery', city: 'ALPHARETTA', postalCode: '30005' },
  { afterMs: 30 * 60 * 60_000, eventType: 'DL', description: 'Delivered', city: 'ALPHARETTA', postalCode: '30005' },
];

export interface FedexSimPackage {
  trackingNumber: string;
  /** The package's CUSTOMER_REFERENCE values. */
  references: string[];
  serviceType: string;
  account: string;
  createdAt: number;
  cancelledAt: number | null;
  origin: { city: string; postalCode: string; countryCode: string };
  destination: { city: string; postalCode: string; countryCode: string };
  /** What its label shows. */
  art: LabelArt;
  /** Its own scans over time instead of the simulator's schedule (the tracking bench's parcels walk a week). */
  schedule?: readonly FedexScanStep[];
}

export interface FedexSimPickup {
  code: string;
  carrierCode: string;
  location: string;
  scheduledDate: string;
  cancelled: boolean;
}

/** FedEx-like 12-digit numbers: never starting with the sandbox's two zeros. */
export function trackingNumber(serial: number): string {
  return `79${String(serial % 10_000_000_000).padStart(10, '0')}`;
}

/** Money as FedEx writes it: a number of units with two decimals. */
export const units = (cents: number) => Math.round(cents) / 100;

/** Each scan that has happened by `now`, oldest first; a cancelled shipment stops at its cancellation. */
export function scansAt(pkg: FedexSimPackage, schedule: readonly FedexScanStep[], now: number, extra: readonly FedexExtraScan[] = []): FedexExtraScan[] {
  const events: FedexExtraScan[] = [
    ...extra.filter((e) => e.at <= now),
    { at: pkg.createdAt, eventType: 'OC', description: 'Shipment information sent to FedEx', city: pkg.origin.city, postalCode: pkg.origin.postalCode },
  ];
  for (const step of pkg.schedule ?? schedule) {
    const at = pkg.createdAt + step.afterMs;
    if (at > now || (pkg.cancelledAt !== null && at > pkg.cancelledAt)) continue;
    events.push({ at, eventType: step.eventType, description: step.description, city: step.city, postalCode: step.postalCode });
  }
  if (pkg.cancelledAt !== null && pkg.cancelledAt <= now) {
    events.push({ at: pkg.cancelledAt, eventType: 'CA', description: 'Shipment cancelled by sender', city: '', postalCode: '' });
  }
  return events.sort((a, b) => a.at - b.at);
}

/** Whether FedEx has been tendered the package by `now`: any scan but its creation and its cancellation. */
export function isTendered(pkg: FedexSimPackage, schedule: readonly FedexScanStep[], now: number, extra: readonly FedexExtraScan[] = []): boolean {
  return scansAt(pkg, schedule, now, extra).some((e) => e.eventType !== 'OC' && e.eventType !== 'CA');
}
