import { ActivityFailure, log, proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { DeliveryOutcome, WebhookActivities } from '../activities/index.js';
import { failureTypeOf, nonRetryableFailure, type WebhookDeliveryInput, type WebhookDeliveryResult } from '../contract/index.js';
import { CODE, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS } from '../domain/workflow.js';

/** Reading the event from our own database: retried until it works. */
const load = () =>
  proxyActivities<WebhookActivities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', nonRetryableErrorTypes: [CODE.webhook_event_missing] },
    summary: 'Build the delivery body from the event',
  });

/**
 * One HTTP attempt. The activity reports the receiver's answer as its result, so its own retries
 * only cover losing the worker mid-attempt (a duplicate with the same id, never a loss); they never
 * add attempts to the schedule, which is the workflow's alone.
 */
const deliver = (attempt: number) =>
  proxyActivities<WebhookActivities>({
    // The request itself gives up after 10 s; the rest is room for DNS and recording the attempt.
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
    summary: `POST attempt ${attempt} of ${WEBHOOK_MAX_ATTEMPTS}`,
  });

const human = (ms: number) => (ms >= 3_600_000 ? `${ms / 3_600_000} h` : ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`);

/**
 * `webhook/<evt>/<we>` on the `webhooks` queue: one event to one endpoint. Attempts at once, then
 * 10 s, 1 min, 5 min, 30 min and 2 h after each failure (spec §6); six at most, then the run fails.
 * The body is built once, so every attempt sends the same bytes and the same id; the signature is
 * made afresh at each attempt by the activity.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  setCurrentDetails(`${input.eventType} ${input.eventId} → ${input.endpointId}: loading the event`);
  const body = await load().loadWebhookEvent({ eventId: input.eventId, accountId: input.accountId, livemode: input.livemode });

  let last = '';
  for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
    setCurrentDetails(`${input.eventType} ${input.eventId} → ${input.endpointId}: attempt ${attempt} of ${WEBHOOK_MAX_ATTEMPTS}`);
    const result = await attemptOnce(input, body, attempt);
    if (result.outcome === 'succeeded') {
      setCurrentDetails(`delivered at attempt ${attempt} (HTTP ${result.statusCode} in ${result.latencyMs} ms)`);
      return { outcome: 'delivered', attempts: attempt };
    }
    if (result.outcome === 'endpoint_deleted') {
      setCurrentDetails(`endpoint ${input.endpointId} was deleted; nothing more is sent`);
      return { outcome: 'endpoint_deleted', attempts: attempt - 1 };
    }
    last = result.error;
    if (attempt === WEBHOOK_MAX_ATTEMPTS) break;
    const delay = WEBHOOK_RETRY_DELAYS_MS[attempt - 1];
    setCurrentDetails(`attempt ${attempt} failed (${last}); attempt ${attempt + 1} in ${human(delay)}`);
    await sleep(delay, { summary: `Wait ${human(delay)} before attempt ${attempt + 1} of ${WEBHOOK_MAX_ATTEMPTS}` });
  }
  setCurrentDetails(`failed: ${WEBHOOK_MAX_ATTEMPTS} attempts, the last: ${last}`);
  throw nonRetryableFailure(
    CODE.webhook_delivery_failed,
    `Webhook ${input.eventId} to ${input.endpointId} failed after ${WEBHOOK_MAX_ATTEMPTS} attempts; the last: ${last}`,
  );
}

/**
 * One delivery attempt. An attempt that found its account's share of the worker's slots taken and
 * gave up its retries while waiting is scheduled again as the same attempt: waiting for a slot sends
 * nothing, so it is never a delivery attempt.
 */
async function attemptOnce(input: WebhookDeliveryInput, body: string, attempt: number): Promise<DeliveryOutcome> {
  for (;;) {
    try {
      return await deliver(attempt).deliverWebhook({
        eventId: input.eventId,
        endpointId: input.endpointId,
        attempt,
        body,
        final: attempt === WEBHOOK_MAX_ATTEMPTS,
      });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      if (failureTypeOf(err) === CODE.webhook_account_busy) {
        setCurrentDetails(`${input.eventType} ${input.eventId} → ${input.endpointId}: attempt ${attempt} waits for a slot of account ${input.accountId}`);
        continue;
      }
      // The activity could not finish even after its own retries: count it as a failed attempt.
      log.warn('webhook attempt could not be completed', { attempt, error: err.cause?.message ?? err.message });
      return { outcome: 'failed', statusCode: null, error: 'the attempt could not be completed', latencyMs: null };
    }
  }
}
