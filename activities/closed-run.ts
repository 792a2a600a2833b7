import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/index.js';

/**
 * A workflow's latest run once it has been closed since `cutoff` or earlier, with the input it was
 * started with (decoded from the first event of its history, through this client's data converter).
 * Undefined when no such workflow exists, while it runs, or when it closed after `cutoff` (a carrier
 * call it had started may still be ending).
 */
export async function closedRunOf<T>(
  client: Client,
  workflowId: string,
  cutoff: Date,
): Promise<{ description: WorkflowExecutionDescription; closedAs: string; input: T | undefined } | undefined> {
  let description: WorkflowExecutionDescription;
  try {
    description = await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
  const closedAs = description.status.name;
  if (closedAs === 'RUNNING' || !description.closeTime || description.closeTime > cutoff) return undefined;
  const history = await client.workflow.getHandle(workflowId, description.runId).fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  const [input] = (await decodeArrayFromPayloads(client.workflow.options.loadedDataConverter, payloads)) as [T?];
  return { description, closedAs, input };
}
