import type { PurchaseOutcome } from '../contract/index.js';
import type { EventType } from '../domain/workflow.js';

/** What the purchase saga ends with, for the shipment workflow to answer and go on from. */
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
