import type { EventType } from '../domain/workflow.js';

/** One event to one endpoint: `webhook/<evt>/<we>` on the `webhooks` queue (workflows/webhook-delivery.ts). */
export interface WebhookDeliveryInput {
  eventId: string;
  eventType: EventType;
  endpointId: string;
  accountId: string;
  livemode: boolean;
}

export interface WebhookDeliveryResult {
  outcome: 'delivered' | 'endpoint_deleted';
  /** Attempts made (0 when the endpoint was deleted before the first). */
  attempts: number;
}

