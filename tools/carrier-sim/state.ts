import { randomUUID } from 'node:crypto';
import type { Address, Parcel, ScanStatus } from '../../domain/index.js';
import type { CarrierDefinition } from '../../carriers/index.js';

export interface SimPurchase {
  id: string;
  carrier: string;
  reference: string;
  trackingNumber: string;
  service: string;
  cancelled: boolean;
  createdAt: string;
  /** Absent for UPS and USPS purchases: their own simulators keep the request. */
  from?: Address;
  to?: Address;
  parcel?: Parcel;
  /** Acme's Idempotency-Key and the canonical request it came with, for replays. */
  idempotencyKey?: string;
  fingerprint?: string;
  /** An Acme return label. */
  isReturn?: boolean;
}

export interface SimScan {
  id: string;
  carrier: string;
  trackingNumber: string;
  status: ScanStatus;
  description: string;
  location: { city: string; postcode: string; country: string } | null;
  occurredAt: string;
}

export type CardStatus = 'authorized' | 'captured' | 'voided' | 'refunded';

export interface CardAuthorization {
  id: string;
  customer: string;
  amount: number;
  currency: string;
  reference: string;
  status: CardStatus;
  createdAt: string;
}

/** Everything the simulator remembers; in memory, gone when it stops. */
export interface SimState {
  purchases: SimPurchase[];
  scans: Map<string, SimScan[]>;
  /** When each carrier received each buy request (ms since the epoch), faulted or not. */
  buyTimestamps: Map<string, number[]>;
  authorizations: CardAuthorization[];
  newId(prefix: string): string;
  /** A tracking number in the carrier's format that no purchase has yet. */
  newTrackingNumber(definition: CarrierDefinition): string;
  addPurchase(purchase: Omit<SimPurchase, 'id' | 'trackingNumber' | 'createdAt' | 'cancelled'>, definition: CarrierDefinition): SimPurchase;
  purchaseByTracking(trackingNumber: string): SimPurchase | undefined;
  scansOf(trackingNumber: string): SimScan[];
  addScan(scan: Omit<SimScan, 'id' | 'occurredAt'>): SimScan;
}

export function createSimState(): SimState {
  let counter = 0;
  let lastScanAt = 0;
  const state: SimState = {
    purchases: [],
    scans: new Map(),
    buyTimestamps: new Map(),
    authorizations: [],
    newId: (prefix) => `${prefix}_${(++counter).toString().padStart(6, '0')}${randomUUID().slice(0, 8)}`,
    newTrackingNumber(definition) {
      for (;;) {
        const candidate = definition.trackingNumberFor(randomUUID());
        if (!state.purchaseByTracking(candidate)) return candidate;
      }
    },
    addPurchase(input, definition) {
      const purchase: SimPurchase = {
        ...input,
        id: state.newId('lbl'),
        trackingNumber: state.newTrackingNumber(definition),
        createdAt: new Date().toISOString(),
        cancelled: false,
      };
      state.purchases.push(purchase);
      return purchase;
    },
    purchaseByTracking: (trackingNumber) => state.purchases.find((p) => p.trackingNumber === trackingNumber),
    scansOf: (trackingNumber) => state.scans.get(trackingNumber) ?? [],
    addScan(input) {
      // Strictly increasing times, so "oldest first" is never a tie, even within one millisecond.
      lastScanAt = Math.max(Date.now(), lastScanAt + 1);
      const scan: SimScan = { ...input, id: state.newId('scn'), occurredAt: new Date(lastScanAt).toISOString() };
      const list = state.scans.get(input.trackingNumber) ?? [];
      list.push(scan);
      state.scans.set(input.trackingNumber, list);
      return scan;
    },
  };
  return state;
}
