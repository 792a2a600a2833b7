/**
 * The purchase's shape with nothing of ours in it (`npm run bench -- sdk-floor`): the commands and
 * events of `shipmentWorkflow`'s purchase, each step a no-op. Started by Update-With-Start; one
 * local activity, then an activity on a second task queue (the carrier's), then a second local
 * activity; the update answered; the status search attributes set; then a 15-minute timer (the first
 * tracking poll). Workflow code only: the worker bundles this file.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { condition, defineUpdate, proxyActivities, proxyLocalActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';

export interface FloorActivities {
  begin(input: { id: string }): Promise<{ ok: true }>;
  buy(input: { id: string }): Promise<{ trackingNumber: string }>;
  complete(input: { id: string; trackingNumber: string }): Promise<Array<{ id: string; type: string }>>;
}

export const floorUpdate = defineUpdate<{ ok: true }>('purchase');
const status = defineSearchAttributeKey('ShipmentStatus', SearchAttributeType.KEYWORD);
const carrier = defineSearchAttributeKey('Carrier', SearchAttributeType.KEYWORD);
const trackingNumber = defineSearchAttributeKey('TrackingNumber', SearchAttributeType.KEYWORD);

const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30 seconds' });

export async function floorWorkflow(input: { id: string; carrierQueue: string }): Promise<void> {
  let outcome: { ok: true } | undefined;
  setHandler(floorUpdate, async () => {
    await condition(() => outcome !== undefined);
    return outcome!;
  });
  await local.begin({ id: input.id });
  const remote = proxyActivities<FloorActivities>({ taskQueue: input.carrierQueue, startToCloseTimeout: '30 seconds', heartbeatTimeout: '5 seconds' });
  const label = await remote.buy({ id: input.id });
  await local.complete({ id: input.id, trackingNumber: label.trackingNumber });
  outcome = { ok: true };
  upsertSearchAttributes([
    { key: status, value: 'purchased' },
    { key: carrier, value: 'acme' },
    { key: trackingNumber, value: label.trackingNumber },
  ]);
  await condition(() => false, '15 minutes');
}
