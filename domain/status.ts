/** Shipment statuses and the one state machine that moves between them (spec §3, contract). */
export const SHIPMENT_STATUSES = [
  'pending',
  'purchased',
  'in_transit',
  'exception',
  'delivered',
  'voiding',
  'voided',
  'failed',
] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

export const TRACKING_STATUSES = [
  'label_created',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'exception',
  'cancelled',
] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

/** Statuses a carrier scan can report. */
export const SCAN_STATUSES = ['in_transit', 'out_for_delivery', 'delivered', 'exception'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

const TRANSITIONS: Record<ShipmentStatus, readonly ShipmentStatus[]> = {
  pending: ['purchased', 'failed'],
  purchased: ['in_transit', 'exception', 'delivered', 'voiding'],
  in_transit: ['exception', 'delivered'],
  exception: ['in_transit', 'delivered'],
  // A carrier that refuses the cancellation leaves the label purchased and charged.
  voiding: ['voided', 'purchased'],
  delivered: [], // spec §3 rule 4: delivered is terminal
  voided: [],
  failed: [],
};

export function canTransition(from: ShipmentStatus, to: ShipmentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isTerminal(status: ShipmentStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

/** The shipment status a scan implies; out-for-delivery is still in transit. */
export function statusForScan(scan: ScanStatus): ShipmentStatus {
  switch (scan) {
    case 'in_transit':
    case 'out_for_delivery':
      return 'in_transit';
    case 'delivered':
      return 'delivered';
    case 'exception':
      return 'exception';
  }
}

/**
 * Where a scan takes a shipment: the new status, or the same one when the scan changes nothing
 * (it still counts as a tracking update). Scans after a terminal status change nothing.
 */
export function applyScan(current: ShipmentStatus, scan: ScanStatus): ShipmentStatus {
  const next = statusForScan(scan);
  if (next === current) return current;
  return canTransition(current, next) ? next : current;
}

/** Only a purchased label that no carrier has scanned can be voided (spec §3 rule 2). */
export function isVoidable(status: ShipmentStatus): boolean {
  return canTransition(status, 'voiding');
}

export const FUNDING_SOURCES = ['wallet', 'credit_line', 'card'] as const;
export type FundingSource = (typeof FUNDING_SOURCES)[number];

export const EVENT_TYPES = [
  'shipment.purchased',
  'shipment.in_transit',
  'shipment.delivered',
  'shipment.exception',
  'shipment.voided',
  'tracking.updated',
  'wallet.low_balance',
  'batch.completed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The event a status change emits, if any. */
export function eventForStatus(status: ShipmentStatus): EventType | null {
  switch (status) {
    case 'purchased':
      return 'shipment.purchased';
    case 'in_transit':
      return 'shipment.in_transit';
    case 'delivered':
      return 'shipment.delivered';
    case 'exception':
      return 'shipment.exception';
    case 'voided':
      return 'shipment.voided';
    default:
      return null;
  }
}
