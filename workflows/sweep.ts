import { log, patched, proxyActivities } from '@temporalio/workflow';
import type { SweepActivities } from '../activities/index.js';
import type { OrphanSweepInput, OrphanSweepResult } from '../contract/index.js';

/** Each sweep's activity, with what it does as operators read it in the Temporal UI. */
function sweep<K extends keyof SweepActivities>(name: K, summary: string): SweepActivities[K] {
  const activities = proxyActivities<SweepActivities>({
    startToCloseTimeout: '1 minute',
    summary,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
  });
  return activities[name];
}
const sweepUnstartedPurchases = sweep('sweepUnstartedPurchases', 'fail pending shipments whose workflow never started, and free their keys');
const startMissingDeliveries = sweep('startMissingDeliveries', 'start the webhook deliveries of stored events that have none');
const settleStoppedShipments = sweep('settleStoppedShipments', 'settle the shipments whose run stopped mid-purchase or mid-void (a Terminate)');
const settleStoppedBatches = sweep('settleStoppedBatches', 'fail the items a stopped batch run never reached, and complete the batch');
const settleUnconfirmedPickups = sweep('settleUnconfirmedPickups', 'settle the pickups whose carrier answer was lost: cancel what the carrier booked, or leave them for an operator');

/** The patch of the unconfirmed pickups' step (workflows/patches.ts). */
const SWEEP_PICKUPS = 'sweep-unconfirmed-pickups';

/** Run by the `sweep-unstarted-purchases` Schedule (workers/schedules.ts) every minute. */
export async function orphanSweepWorkflow(input: OrphanSweepInput): Promise<OrphanSweepResult> {
  const swept = await sweepUnstartedPurchases(input);
  if (swept.length) log.warn('failed pending shipments that never started', { shipments: swept.map((s) => s.shipment_id) });
  // Each step appended after the last: a run begun before it existed replays as recorded, then runs it.
  const started = await startMissingDeliveries(input);
  if (started.length) log.warn('started webhook deliveries that no announcement had started', { deliveries: started });
  const { settling, unsettled } = await settleStoppedShipments(input);
  if (settling.length) log.warn('started runs to settle shipments whose run stopped mid-purchase or mid-void', { shipments: settling });
  if (unsettled.length) log.error('runs that settled a stopped shipment closed without settling it: look at them', { shipments: unsettled });
  const batches = await settleStoppedBatches(input);
  if (batches.settling.length) log.warn('settled batches whose run stopped before they completed', { batches: batches.settling });
  if (batches.unsettled.length) log.error('runs that completed a stopped batch closed without completing it: look at them', { batches: batches.unsettled });
  if (patched(SWEEP_PICKUPS)) {
    const pickups = await settleUnconfirmedPickups(input);
    if (pickups.settled.length) log.warn('settled pickups whose carrier answer was lost', { pickups: pickups.settled });
    if (pickups.left.length) log.error('pickups whose carrier answer was lost need an operator (npm run ops -- stuck)', { pickups: pickups.left });
  }
  return {
    failed: swept.map((s) => s.shipment_id),
    deliveriesStarted: started.map((s) => `${s.event_id} → ${s.endpoint_id}`),
    settling: settling.map((s) => `${s.shipment_id} (${s.status}, run ${s.stopped_run} ${s.closed_as.toLowerCase()})`),
  };
}
