import { proxyActivities } from '@temporalio/workflow';
import type { CarrierActivities } from '../activities/carriers.js';
import type { LedgerActivities } from '../activities/ledger.js';
import type { PaymentActivities } from '../activities/payments.js';
import type { ShipmentActivities } from '../activities/shipments.js';
import type { LabelActivities } from '../activities/labels/activities.js';
import { taskQueues } from '../domain/index.js';

/** Our own database and rendering: retried until they work, since they cannot fail for good. */
const local = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;

export function shipmentActivities() {
  return proxyActivities<ShipmentActivities & LedgerActivities & LabelActivities>({
    ...local,
    retry: { ...local.retry, nonRetryableErrorTypes: ['insufficient_funds', 'service_not_available'] },
  });
}

export function paymentActivities() {
  return proxyActivities<PaymentActivities>({
    ...local,
    retry: { ...local.retry, nonRetryableErrorTypes: ['card_declined'] },
  });
}

/**
 * Live carrier calls run on the carrier's own queue, whose rate limit holds fleet-wide; sandbox calls
 * touch no carrier and run beside the workflow. Retryable failures back off under this policy (or the
 * carrier's Retry-After); refusals and ambiguous outcomes are non-retryable and the workflow decides.
 */
export function carrierActivities(
  target: { queuePrefix: string; livemode: boolean },
  carrier: string,
  scheduleToCloseMs?: number,
  summary?: string,
  /** 1 when the workflow runs the retries itself (the purchase does, to show each attempt). */
  maximumAttempts?: number,
) {
  const queues = taskQueues(target.queuePrefix);
  return proxyActivities<CarrierActivities>({
    ...(summary ? { summary } : {}),
    taskQueue: target.livemode ? queues.carrier(carrier) : queues.shipments,
    startToCloseTimeout: '30 seconds',
    ...(scheduleToCloseMs ? { scheduleToCloseTimeout: scheduleToCloseMs } : {}),
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts },
  });
}
