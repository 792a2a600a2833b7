import type { Address, EventType, FundingSource, Parcel } from '../domain/workflow.js';
import type { PurchaseOutcome } from './definitions.js';

export interface PurchaseInput {
  shipmentId: string;
  accountId: string;
  livemode: boolean;
  fundingSource: FundingSource;
  currency: string;
  vatRateBp: number;
  serviceCode: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  reference: string | null;
  queuePrefix: string;
  /** How long the purchase may keep trying an unreachable carrier before failing cleanly. */
  purchaseDeadlineMs: number;
  /** How long to keep looking for a stray label after a purchase that may have bought failed. */
  strayLabelSettleMs?: number;
}

export interface PurchaseResult {
  outcome: PurchaseOutcome;
  carrier: string | null;
  trackingNumber: string | null;
  lowBalance: { available: number } | null;
  /** The purchase failed after an ambiguous carrier call: look for a stray label and cancel it. */
  strayLabelCheck: boolean;
  /** Events the purchase stored with it, to announce to webhook endpoints after the answer. */
  events?: Array<{ id: string; type: EventType }>;
}
