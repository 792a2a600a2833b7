import type { FundingSource } from '../domain/workflow.js';
import type { ShipmentWorkflowInput } from './shipment.js';

/** What a batch's workflow (workflows/batch.ts) is started with, and carries over each continue-as-new. */
export interface BatchWorkflowInput {
  batchId: string;
  accountId: string;
  livemode: boolean;
  /** How many items the batch has: items are 0 to total - 1 in item order. */
  total: number;
  /** The item this run starts at (0 for the first run). */
  next: number;
  /** Items ended so far, by outcome, in the runs before this one. */
  purchased: number;
  failed: number;
  /** What each item's purchase is started with besides its row, as the API starts a single purchase. */
  purchase: BatchPurchaseSettings;
  /**
   * Set on a run the orphan sweep starts after a run that closed before the batch completed (an
   * operator's Terminate): every item has ended by then, and this run only completes the batch.
   */
  completing?: { runId: string; closedAs: string };
}

/** The account's terms and the API's settings each item's shipment workflow is started with. */
export interface BatchPurchaseSettings extends Pick<ShipmentWorkflowInput, 'queuePrefix' | 'purchaseDeadlineMs' | 'strayLabelSettleMs' | 'tracking' | 'currency' | 'vatRateBp'> {
  fundingSource: FundingSource;
}

export interface BatchWorkflowResult {
  status: 'completed' | 'not_recorded';
  purchased: number;
  failed: number;
}

/** What the workflow that makes a batch's merged label file again (workflows/batch-label-file.ts) is started with. */
export interface BatchLabelFileInput {
  batchId: string;
  queuePrefix: string;
}

/** How an item ended. */
export type BatchItemOutcome = 'purchased' | 'failed';

/**
 * Items in flight at once: each is a shipment workflow of its own, so this bounds the batch's share
 * of the purchase capacity (and the carriers' rate budgets) whatever its size.
 */
export const BATCH_CONCURRENCY = 16;
/**
 * Items per run: the run then continues as new, so a 1,000-item batch never keeps more than this
 * many items' events in one history (a few thousand events, far below Temporal's limits).
 */
export const BATCH_ITEMS_PER_RUN = 100;
/**
 * A batch and its items' shipments run at a lower task queue priority than a single purchase (whose
 * priority is Temporal's default, 3; 1 is the highest, 5 the lowest): whenever tasks wait in line
 * (a carrier queue at its rate limit, the workers' slots all taken), the customer waiting on one
 * label is served before the items of a bulk order. The items' activities, and their voids and
 * tracking later, inherit it. It needs the server's priority matcher (`matching.useNewMatcher`,
 * tools/temporal/tuning.ts), whose order holds within each partition of a queue; a server without it
 * serves them in the order they came.
 */
export const BATCH_PRIORITY = { priorityKey: 4 } as const;
