import { eventForStatus, type EventType, type ShipmentStatus } from '../domain/workflow.js';
import { workflowId } from './event-ids.js';
import type { PurchaseInput } from '../contract/index.js';
import { shipmentActivities } from './proxies.js';

/** Records an event once, under an id made here in the workflow. */
export async function emitEvent(input: PurchaseInput, type: EventType, shipmentId: string | null, object?: unknown) {
  await shipmentActivities().recordEvent({
    id: workflowId('evt'),
    type,
    accountId: input.accountId,
    livemode: input.livemode,
    shipmentId,
    createdAt: new Date(Date.now()).toISOString(),
    object,
  });
}

export async function emitStatusEvent(input: PurchaseInput, status: ShipmentStatus) {
  const type = eventForStatus(status);
  if (type) await emitEvent(input, type, input.shipmentId);
}
