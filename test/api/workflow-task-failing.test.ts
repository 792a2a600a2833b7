import { ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { isWorkflowTaskFailing } from '../../api/shipment-workflow.js';
import { isDependencyUnavailable } from '../../api/problem.js';

// A void sent while its shipment's workflow task is failing (its worker SIGKILLed mid-task) comes
// back from Temporal as this error: a reason to ask again, not a 500.
function refusedWhileTaskFails(): ServiceError {
  const grpc = Object.assign(new Error('9 FAILED_PRECONDITION: Unable to perform workflow execution update due to Workflow Task in failed state.'), {
    code: 9,
    details: 'Unable to perform workflow execution update due to Workflow Task in failed state.',
    metadata: {},
  });
  return new ServiceError('Workflow Update failed', { cause: grpc });
}

describe('an update refused while the workflow task is failing', () => {
  it('is told apart, along the cause chain, as a reason to ask again', () => {
    expect(isWorkflowTaskFailing(refusedWhileTaskFails())).toBe(true);
  });

  it('is not mistaken for other refusals or for an unreachable Temporal', () => {
    const other = new ServiceError('Workflow Update failed', { cause: Object.assign(new Error('9 FAILED_PRECONDITION: something else'), { code: 9 }) });
    expect(isWorkflowTaskFailing(other)).toBe(false);
    expect(isWorkflowTaskFailing(new Error('boom'))).toBe(false);
    expect(isDependencyUnavailable(refusedWhileTaskFails())).toBe(false);
  });
});
