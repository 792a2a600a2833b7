import { log, proxyActivities } from '@temporalio/workflow';
import type { SweepActivities } from '../activities/index.js';

const retry = { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 };
const { sweepUnstartedPurchases } = proxyActivities<SweepActivities>({
  startToCloseTimeout: '1 minute',
  summary: 'fail pending shipments whose workflow never started, and free their keys',
  retry,
});
const { startMissingDeliveries } = proxyActivities<SweepActivities>({
  startToCloseTimeout: '1 minute',
  summary: 'start the webhook deliveries of stored events that have none',
  retry,
});
const { settleStoppedShipments } = proxyActivities<SweepActivities>({
  startToCloseTimeout: '1 minute',
  summary: 'settle the shipments whose run stopped mid-purchase or mid-void (a Terminate)',
  retry,
});

/** Run by the `sweep-unstarted-purchases` Schedule (workers/schedules.ts) every minute. */
export async function orphanSweepWorkflow(input: { olderThanMs: number }): Promise<{ failed: string[]; deliveriesStarted: string[]; settling: string[] }> {
  const swept = await sweepUnstartedPurchases(input);
  if (swept.length) log.warn('failed pending shipments that never started', { shipments: swept.map((s) => s.shipment_id) });
  // Each step appended after the last: a run begun before it existed replays as recorded, then runs it.
  const started = await startMissingDeliveries(input);
  if (started.length) log.warn('started webhook deliveries that no announcement had started', { deliveries: started });
  const { settling, unsettled } = await settleStoppedShipments(input);
  if (settling.length) log.warn('started runs to settle shipments whose run stopped mid-purchase or mid-void', { shipments: settling });
  if (unsettled.length) log.error('runs that settled a stopped shipment closed without settling it: look at them', { shipments: unsettled });
  return {
    failed: swept.map((s) => s.shipment_id),
    deliveriesStarted: started.map((s) => `${s.event_id} → ${s.endpoint_id}`),
    settling: settling.map((s) => `${s.shipment_id} (${s.status}, run ${s.stopped_run} ${s.closed_as.toLowerCase()})`),
  };
}
