import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';

export interface WorkerTracingDeps {
  resource: Resource;
  spanProcessor: SpanProcessor;
}

/**
 * The worker options that trace (Temporal's OpenTelemetry interceptors): each activity runs in a
 * span whose parent is the workflow's, and the workflow's spans (made inside the sandbox) leave it
 * through the `exporter` sink. The workflow interceptors are bundled with the workflows, so the sink
 * is always there: without tracing it drops the spans.
 */
export function workerTracing(tracing: WorkerTracingDeps | undefined, workflowModules: string[]): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!tracing) {
    return { interceptors: workflowModules.length ? { workflowModules } : {}, sinks: { exporter: { export: { fn: () => undefined, callDuringReplay: false } } } };
  }
  return {
    interceptors: {
      ...(workflowModules.length ? { workflowModules } : {}),
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
