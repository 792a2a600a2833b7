/** The simulated DHL Express account's data: its shipments with their checkpoints over time, and pickups. */

export interface SimCheckpointStep {
  /** Milliseconds after the shipment was created. */
  afterMs: number;
  typeCode: string;
  description: string;
  /** A DHL service area's description: `LONDON-GB`. */
  area: string;
}

/** A shipment walks from pickup through the hubs and customs to delivery, as DHL's checkpoints name it. */
export const DEFAULT_CHECKPOINTS: SimCheckpointStep[] = [
  { afterMs: 2 * 60 * 60_000, typeCode: 'PU', description: 'Shipment picked up', area: 'LONDON-GB' },
  { afterMs: 5 * 60 * 60_000, typeCode: 'PL', description: 'Processed at LONDON-HEATHROW - UK', area: 'LONDON-GB' },
  { afterMs: 7 * 60 * 60_000, typeCode: 'DF', description: 'Shipment has departed from a DHL facility LONDON-HEATHROW - UK', area: 'LONDON-GB' },
  { afterMs: 12 * 60 * 60_000, typeCode: 'AF', description: 'Arrived at DHL Sort Facility LEIPZIG - GERMANY', area: 'LEIPZIG-DE' },
  { afterMs: 14 * 60 * 60_000, typeCode: 'CR', description: 'Clearance processing complete at LEIPZIG - GERMANY', area: 'LEIPZIG-DE' },
  { afterMs: 20 * 60 * 60_000, typeCode: 'AR', description: 'Arrived at DHL Delivery Facility BERLIN - GERMANY', area: 'BERLIN-DE' },
  { afterMs: 22 * 60 * 60_000, typeCode: 'WC', description: 'Shipment is out with courier for delivery', area: 'BERLIN-DE' },
  { afterMs: 26 * 60 * 60_000, typeCode: 'OK', description: 'Delivered', area: 'BERLIN-DE' },
];

/** A checkpoint from outside the schedule (a test's, or the shared simulator's `/_sim/scans`), in DHL's terms. */
export interface SimDhlExtraCheckpoint {
  at: number;
  typeCode: string;
  description: string;
  area: string;
}

export interface SimDhlShipment {
  trackingNumber: string;
  /** Customer references (`CU`) it was created with. */
  references: string[];
  account: string;
  productCode: string;
  createdAt: number;
  origin: { city: string; postcode: string; country: string };
  destination: { city: string; postcode: string; country: string };
  weightKg: number;
  price: { amount: number; currency: string };
  /** Whether its label was requested with an invoice (a dutiable shipment). */
  invoice: boolean;
}

export interface SimDhlPickup {
  confirmation: string;
  account: string;
  plannedAt: string;
  status: 'booked' | 'cancelled';
}

/** A waybill: nine digits and a check digit, the nine modulo 7. */
export function waybill(serial: number): string {
  const nine = String(100_000_000 + (serial % 900_000_000)).padStart(9, '0');
  return `${nine}${Number(nine) % 7}`;
}

/** Each checkpoint that has happened by `now`, oldest first. */
export function checkpointsAt(shipment: SimDhlShipment, schedule: readonly SimCheckpointStep[], now: number, extra: readonly SimDhlExtraCheckpoint[] = []) {
  const events: SimDhlExtraCheckpoint[] = extra.filter((e) => e.at <= now);
  for (const step of schedule) {
    const at = shipment.createdAt + step.afterMs;
    if (at <= now) events.push({ at, typeCode: step.typeCode, description: step.description, area: step.area });
  }
  return events.sort((a, b) => a.at - b.at);
}
