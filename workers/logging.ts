import { makeTelemetryFilterString, Runtime, type Logger as SdkLogger, type LogLevel, type LogMetadata } from '@temporalio/worker';
import type { Logger } from 'pino';

/**
 * What the SDK says at start for each queue a worker polls only for activities (the carrier
 * queues) or without Nexus services (all of them): expected in this fleet, so not a warning.
 */
const EXPECTED_AT_START = new Set([
  'No workflows registered, not polling for workflow tasks',
  'No Nexus services registered, not polling for Nexus tasks',
]);

const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The Temporal SDK's logger on top of the process's pino logger, so every line a worker writes is
 * one JSON object at LOG_LEVEL: the SDK's own (worker state, failed tasks), the workflows' `log`
 * calls (with `workflowId`, `runId` and `workflowType`, for finding the shipment in the UI) and
 * the activities' context logs. An `error` in the metadata is logged as pino's `err`, with its stack.
 */
export function sdkLogger(log: Logger): SdkLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const { error, ...fields }: Record<string, unknown> = meta ?? {};
    if (error !== undefined) fields[error instanceof Error ? 'err' : 'error'] = error;
    const pinoLevel = EXPECTED_AT_START.has(message) ? 'debug' : PINO_LEVEL[level];
    log[pinoLevel](fields, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}

/**
 * Installs the process's Temporal runtime (once, before any connection or worker): its logs go to
 * `log`, the SDK core's own (Rust) warnings included, and with `prometheusPort` its metrics are
 * exported on that loopback port.
 */
export function installWorkerRuntime(log: Logger, o: { prometheusPort?: number } = {}): void {
  Runtime.install({
    logger: sdkLogger(log),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} },
      ...(o.prometheusPort ? { metrics: { prometheus: { bindAddress: `127.0.0.1:${o.prometheusPort}` } } } : {}),
    },
  });
}
