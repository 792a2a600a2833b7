import { log, proxyActivities } from '@temporalio/workflow';
import type { SweepActivities } from '../activities/index.js';

const { sweepUnstartedPurchases } = proxyActivities<SweepActivities>({
  startToCloseTimeout: '1 minute',
  summary: 'fail pending shipments whose workflow never started, and free their keys',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

/** Run by the `sweep-unstarted-purchases` Schedule (workers/schedules.ts) every minute. */
export async function orphanSweepWorkflow(input: { olderThanMs: number }): Promise<{ failed: string[] }> {
  const swept = await sweepUnstartedPurchases(input);
  if (swept.length) log.warn('failed pending shipments that never started', { shipments: swept.map((s) => s.shipment_id) });
  return { failed: swept.map((s) => s.shipment_id) };
}
