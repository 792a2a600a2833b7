import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { endpointsSubscribedTo, type Db } from '../db/index.js';
import { SA, taskQueues, WEBHOOK_WORKFLOW, webhookWorkflowId, type EventType } from '../domain/index.js';
import type { WebhookDeliveryInput } from '../workflows/index.js';

export interface RecordedEvent {
  id: string;
  type: EventType;
  accountId: string;
  livemode: boolean;
}

/**
 * After an event is stored: one `webhook/<evt>/<we>` delivery workflow per endpoint of the account
 * and mode that takes the event's type. A workflow id is never reused (REJECT_DUPLICATE), so calling
 * this again for the same event (a retried activity) starts nothing twice.
 */
export function createWebhookFanout(deps: { db: Db; temporal: Client; queuePrefix: string }) {
  const taskQueue = taskQueues(deps.queuePrefix).webhooks;
  return async function fanOut(event: RecordedEvent): Promise<void> {
    const endpoints = await endpointsSubscribedTo(deps.db, event, event.type);
    for (const endpoint of endpoints) {
      const input: WebhookDeliveryInput = {
        eventId: event.id,
        eventType: event.type,
        endpointId: endpoint.id,
        accountId: event.accountId,
        livemode: event.livemode,
      };
      try {
        await deps.temporal.workflow.start(WEBHOOK_WORKFLOW, {
          taskQueue,
          workflowId: webhookWorkflowId(event.id, endpoint.id),
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [input],
          staticSummary: `Webhook ${event.type} ${event.id} → endpoint ${endpoint.id}`,
          typedSearchAttributes: [
            { key: SA.AccountId, value: event.accountId },
            { key: SA.Livemode, value: event.livemode },
          ],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }
  };
}
export type WebhookFanout = ReturnType<typeof createWebhookFanout>;
