import { Counter, Histogram, Registry } from 'prom-client';

/**
 * Our own worker metrics (beside the Temporal runtime's): purchases by outcome, carrier call
 * latency by carrier, webhook attempts by outcome. One registry per process; activities take it
 * from their factory so tests can pass their own. Names follow Prometheus conventions (unit suffix,
 * `_total` for counters). The ledger's holds outstanding (db/metrics.ts) are the fleet's, read
 * from the database: a worker serves them as the API's /metrics/fleet does.
 */
export function createWorkerMetrics(registry = new Registry()) {
  return {
    registry,
    purchases: new Counter({
      name: 'shipping_purchases_total',
      help: 'Purchases that ended, by outcome (purchased or the failure code).',
      labelNames: ['outcome', 'livemode'] as const,
      registers: [registry],
    }),
    carrierCalls: new Histogram({
      name: 'shipping_carrier_call_duration_seconds',
      help: 'Carrier API call latency, by carrier, operation and result.',
      labelNames: ['carrier', 'operation', 'result'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'shipping_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome.',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
  };
}
export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>;
