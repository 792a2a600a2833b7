import { createRequire } from 'node:module';
import { trace, type Tracer } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * OpenTelemetry traces of one process (API or worker): the API's request span, the Temporal client
 * calls, workflows and activities (Temporal's interceptors), the carrier, card and webhook HTTP calls
 * (undici) and the database queries (pg), all in one trace. On only when OTEL_EXPORTER_OTLP_ENDPOINT
 * (or _TRACES_ENDPOINT) is set, exported over OTLP/HTTP with the standard OTEL_* variables; otherwise
 * nothing is installed and nothing is paid. Whether traces are asked for is `config.tracing` (config/config.ts).
 */
export interface Tracing {
  tracer: Tracer;
  resource: Resource;
  spanProcessor: SpanProcessor;
  shutdown(): Promise<void>;
}

let installed: Tracing | undefined;

/**
 * Installs tracing once per process. `exporter` replaces OTLP (tests pass an in-memory one and get
 * spans synchronously); without it, spans are batched to the OTLP endpoint.
 */
export function startTracing(o: { serviceName: string; exporter?: SpanExporter }): Tracing {
  if (installed) return installed;
  const resource = new Resource({ 'service.name': o.serviceName });
  const spanProcessor = o.exporter ? new SimpleSpanProcessor(o.exporter) : new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global: W3C trace context propagation and an AsyncLocalStorage context manager.
  provider.register();
  const pg = new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false });
  registerInstrumentations({ instrumentations: [pg, new UndiciInstrumentation()] });
  patchLoadedPg(pg);
  installed = {
    tracer: trace.getTracer('parcel-shipping'),
    resource,
    spanProcessor,
    shutdown: async () => {
      await provider.shutdown();
      installed = undefined;
    },
  };
  return installed;
}

/** The process's tracing, if it was started. */
export const currentTracing = () => installed;

/**
 * The pg instrumentation hooks `require`, so it misses a pg that was loaded before it (ES modules
 * are imported before any code runs). Patch the loaded module's prototypes directly: the patch is
 * idempotent and every pool and client shares those prototypes.
 */
function patchLoadedPg(instrumentation: PgInstrumentation) {
  const require = createRequire(import.meta.url);
  for (const definition of instrumentation.getModuleDefinitions()) {
    if (definition.name !== 'pg' && definition.name !== 'pg-pool') continue;
    try {
      definition.patch?.(require(definition.name));
    } catch {
      // Not installed here: nothing to trace.
    }
  }
}
