import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateStage,
  type Client,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import {
  purchaseUpdate,
  SA,
  SHIPMENT_WORKFLOW,
  SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
  shipmentWorkflowId,
  taskQueues,
  voidUpdate,
  type ShipmentWorkflowInput,
  type VoidOutcome,
} from '../contract/index.js';

/** Waits for a promise up to `ms`; undefined when time ran out first. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** An outcome within the wait, or the promise of it (`later`) once the wait has run out. */
export type Waited<T> = { done: true; outcome: T } | { done: false; later: Promise<T> };

/** `carrier`: the service's, known before the purchase prices it, so a stuck purchase is found by carrier. */
function operationOptions(input: ShipmentWorkflowInput, o: { carrier?: string } = {}) {
  return {
    workflowId: shipmentWorkflowId(input.shipmentId),
    taskQueue: taskQueues(input.queuePrefix).shipments,
    workflowTaskTimeout: SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS,
    args: [input] as [ShipmentWorkflowInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as const,
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
    staticSummary: `Shipment ${input.shipmentId}: ${input.serviceCode}${input.reference ? `, reference ${input.reference}` : ''}`,
    typedSearchAttributes: [
      { key: SA.AccountId, value: input.accountId },
      { key: SA.ShipmentStatus, value: 'pending' },
      { key: SA.Livemode, value: input.livemode },
      ...(input.reference ? [{ key: SA.Reference, value: input.reference }] : []),
      ...(o.carrier ? [{ key: SA.Carrier, value: o.carrier }] : []),
    ],
  };
}

/**
 * Starts the shipment workflow and its purchase update in one call (Update-With-Start). The update id
 * is the idempotency key or the request id, and an existing workflow is reused, so a duplicate request
 * joins the one purchase; a closed workflow is never started again (REJECT_DUPLICATE). Resolves when
 * the purchase has ended or `waitMs` has passed: the shipment's status then says which.
 */
export async function startPurchase(
  temporal: Client,
  input: ShipmentWorkflowInput,
  updateId: string,
  waitMs: number,
  o: { carrier?: string } = {},
): Promise<void> {
  const operation = new WithStartWorkflowOperation(SHIPMENT_WORKFLOW, operationOptions(input, o));
  // One call that waits for the outcome: the server answers it when the update completes, where
  // waiting for "accepted" and then polling for the result would take a second call through the server.
  const started = temporal.workflow.executeUpdateWithStart(purchaseUpdate, {
    updateId,
    startWorkflowOperation: operation,
  });
  try {
    if ((await within(started, waitMs)) !== undefined) return;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return; // ended already: its row says how
    // A retry joining a purchase whose workflow task is failing (its worker was lost mid-task): the
    // purchase goes on, so the answer is its status now (a 202 while pending), as after the wait.
    if (!isWorkflowTaskFailing(err)) throw err;
  }
  // The update is accepted only once a worker runs the workflow; until then make sure the workflow
  // itself exists, so that the 202 we answer is backed by a durable purchase.
  started.catch(() => undefined);
  try {
    await temporal.workflow.start(SHIPMENT_WORKFLOW, operationOptions(input, o));
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * How long a void may take to be accepted by its workflow before the answer is a 503: long enough
 * for a workflow whose worker was just lost to be picked up by another (its sticky task moves on
 * after 1 s, a workflow task lost mid-way times out after SHIPMENT_WORKFLOW_TASK_TIMEOUT_MS), with room to spare.
 */
const ACCEPT_WAIT_MS = 20_000;

/** The void was not durably accepted in time (no worker took it): nothing is promised; retry. */
export class VoidNotAccepted extends Error {}

/**
 * Sends the void update and waits for the workflow to accept it: only then is the void durable (an
 * update not yet accepted is in no history), so a 202 is never answered for a void that may never
 * run. Then waits for its outcome up to the rest of `waitMs`.
 */
export async function startVoid(
  temporal: Client,
  shipmentId: string,
  updateId: string,
  waitMs: number,
): Promise<Waited<VoidOutcome>> {
  const started = Date.now();
  const handle = temporal.workflow.getHandle(shipmentWorkflowId(shipmentId));
  // A 202 needs the void accepted, which takes a workflow task (milliseconds): wait for that even when
  // the caller asked for no wait at all.
  const deadline = started + Math.max(waitMs, ACCEPT_WAIT_MS);
  let update: WorkflowUpdateHandle<VoidOutcome> | undefined;
  for (let pause = 250; ; pause = Math.min(pause * 2, 2_000)) {
    const accepting = handle.startUpdate(voidUpdate, { updateId, waitForStage: WorkflowUpdateStage.ACCEPTED });
    accepting.catch(() => undefined);
    try {
      update = await within(accepting, Math.max(0, deadline - Date.now()));
      break;
    } catch (err) {
      // Refused while the workflow's task is failing: asked again until it has recovered, within the wait.
      if (!isWorkflowTaskFailing(err)) throw err;
      if (Date.now() + pause >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
  if (!update) throw new VoidNotAccepted(`the void of ${shipmentId} was not accepted within ${Math.max(waitMs, ACCEPT_WAIT_MS)} ms`);
  const result = update.result();
  result.catch(() => undefined);
  const outcome = await within(result, Math.max(waitMs - (Date.now() - started), 0));
  return outcome === undefined ? { done: false, later: result } : { done: true, outcome };
}

/**
 * Whether Temporal refused an update because the workflow's task is failing: the worker that ran it
 * was killed mid-task, or the task timed out on a busy worker (FAILED_PRECONDITION, "Workflow Task
 * in failed state"). It passes once another worker completes the task, within the workflow task
 * timeout (10 s): a reason to ask again, never a failure of the request.
 */
export function isWorkflowTaskFailing(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    const x = e as { message?: unknown; cause?: unknown };
    if (typeof x.message === 'string' && x.message.includes('Workflow Task in failed state')) return true;
    e = x.cause;
  }
  return false;
}
