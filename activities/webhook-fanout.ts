import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { endpointsSubscribedTo, type Db } from '../db/index.js';
import { SA, taskQueues, WEBHOOK_WORKFLOW, webhookWorkflowId, type WebhookDeliveryInput } from '../contract/index.js';
import type { EventType } from '../domain/index.js';

export interface RecordedEvent {
  id: string;
  type: EventType;
  accountId: string;
  livemode: boolean;
}

/**
 * Starts the `webhook/<evt>/<we>` delivery workflow of one event to one endpoint. A workflow id is
 * never reused (REJECT_DUPLICATE), so starting it again starts nothing: false when it already was.
 */
export function createDeliveryStarter(deps: { temporal: Client; queuePrefix: string }) {
  const taskQueue = taskQueues(deps.queuePrefix).webhooks;
  return async function startDelivery(event: RecordedEvent, endpointId: string): Promise<boolean> {
    const input: WebhookDeliveryInput = {
      eventId: event.id,
      eventType: event.type,
      endpointId,
      accountId: event.accountId,
      livemode: event.livemode,
    };
    try {
      await deps.temporal.workflow.start(WEBHOOK_WORKFLOW, {
        taskQueue,
        workflowId: webhookWorkflowId(event.id, endpointId),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [input],
        staticSummary: `Webhook ${event.type} ${event.id} → endpoint ${endpointId}`,
        typedSearchAttributes: [
          { key: SA.AccountId, value: event.accountId },
          { key: SA.Livemode, value: event.livemode },
        ],
      });
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
  };
}
export type DeliveryStarter = ReturnType<typeof createDeliveryStarter>;

/**
 * After an event is stored: one delivery workflow per endpoint of the account and mode that takes
 * the event's type. Calling this again for the same event (a retried activity) starts nothing twice.
 */
export function createWebhookFanout(deps: { db: Db; temporal: Client; queuePrefix: string }) {
  const startDelivery = createDeliveryStarter(deps);
  return async function fanOut(event: RecordedEvent): Promise<void> {
    const endpoints = await endpointsSubscribedTo(deps.db, event, event.type);
    for (const endpoint of endpoints) await startDelivery(event, endpoint.id);
  };
}
export type WebhookFanout = ReturnType<typeof createWebhookFanout>;
