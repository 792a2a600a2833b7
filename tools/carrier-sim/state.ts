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
  /** Requests each carrier received, by `<carrier> <operation>`, faulted or not (carrier calls per parcel, in the bench). */
  calls: Map<string, number>;
  /**
   * Scans given in advance, each reported once its time has come (the tracking bench's parcels walk
   * through a week this way), by tracking number, oldest first.
   */
  itineraries: Map<string, SimScan[]>;
  /** Called with each scan added by `addScan` (UPS Track Alert pushes it to a subscribed package's webhook). */
  scanListeners: Array<(scan: SimScan) => void>;
  authorizations: CardAuthorization[];
  newId(prefix: string): string;
  /** A tracking number in the carrier's format that no purchase has yet. */
  newTrackingNumber(definition: CarrierDefinition): string;
  addPurchase(purchase: Omit<SimPurchase, 'id' | 'trackingNumber' | 'createdAt' | 'cancelled'>, definition: CarrierDefinition): SimPurchase;
  purchaseByTracking(trackingNumber: string): SimPurchase | undefined;
  /** A carrier's purchases under our reference, oldest first; every carrier's without `carrier`. */
  purchasesByReference(reference: string, carrier?: string): SimPurchase[];
  /** The Acme purchase made under an Idempotency-Key. */
  purchaseByIdempotencyKey(carrier: string, key: string): SimPurchase | undefined;
  /** The scans that have happened by `until` (now): those added, and those of its itinerary whose time has come. */
  scansOf(trackingNumber: string, until?: number): SimScan[];
  addScan(scan: Omit<SimScan, 'id' | 'occurredAt'>): SimScan;
}

export function createSimState(): SimState {
  let counter = 0;
  let lastScanAt = 0;
  // Purchases by tracking number, reference and request key, kept by `purchases.push`: a carrier
  // answers a buy or a lookup in the same time whatever it holds. The tracking bench puts a hundred
  // thousand parcels in it, and a scan of them all takes a buy 0.3 s, which the bench's purchases
  // would time instead of the service.
  const byTracking = new Map<string, SimPurchase>();
  const byReference = new Map<string, SimPurchase[]>();
  const byKey = new Map<string, SimPurchase>();
  const keyOf = (carrier: string, key: string) => `${carrier} ${key}`;
  const purchases: SimPurchase[] = [];
  const push = purchases.push.bind(purchases);
  purchases.push = (...added: SimPurchase[]) => {
    for (const p of added) {
      byTracking.set(p.trackingNumber, p);
      const sameReference = byReference.get(p.reference);
      if (sameReference) sameReference.push(p);
      else byReference.set(p.reference, [p]);
      // The first purchase under a key is the one a replay answers with.
      const key = p.idempotencyKey === undefined ? undefined : keyOf(p.carrier, p.idempotencyKey);
      if (key !== undefined && !byKey.has(key)) byKey.set(key, p);
    }
    return push(...added);
  };
  const state: SimState = {
    purchases,
    scans: new Map(),
    buyTimestamps: new Map(),
    calls: new Map(),
    itineraries: new Map(),
    scanListeners: [],
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
    purchaseByTracking: (trackingNumber) => byTracking.get(trackingNumber),
    purchasesByReference: (reference, carrier) => (byReference.get(reference) ?? []).filter((p) => carrier === undefined || p.carrier === carrier),
    purchaseByIdempotencyKey: (carrier, key) => byKey.get(keyOf(carrier, key)),
    scansOf(trackingNumber, until = Date.now()) {
      const added = state.scans.get(trackingNumber) ?? [];
      const planned = state.itineraries.get(trackingNumber);
      if (!planned) return added;
      return [...added, ...planned.filter((s) => Date.parse(s.occurredAt) <= until)].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
    },
    addScan(input) {
      // Strictly increasing times, so "oldest first" is never a tie, even within one millisecond.
      lastScanAt = Math.max(Date.now(), lastScanAt + 1);
      const scan: SimScan = { ...input, id: state.newId('scn'), occurredAt: new Date(lastScanAt).toISOString() };
      const list = state.scans.get(input.trackingNumber) ?? [];
      list.push(scan);
      state.scans.set(input.trackingNumber, list);
      for (const listener of state.scanListeners) listener(scan);
      return scan;
    },
  };
  return state;
}
