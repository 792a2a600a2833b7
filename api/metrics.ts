import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ledgerHoldsGauge, type Db } from '../db/index.js';

/**
 * Prometheus metrics of the API: request counts and latency by route and status, plus the
 * process's own. Served at GET /metrics (outside /api/v1, without a key: keep it on the internal
 * network).
 */
export function registerMetrics(app: FastifyInstance, registry = new Registry(), db?: Db) {
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25],
    registers: [registry],
  });
  const sizes = new Histogram({
    name: 'http_response_size_bytes',
    help: 'HTTP response body size, by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [100, 1000, 10_000, 100_000, 1_000_000],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route template, never the raw URL: ids would make every path a series of its own.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    const length = Number(reply.getHeader('content-length'));
    if (Number.isFinite(length)) sizes.observe(labels, length);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
  if (db) registerFleetMetrics(app, db);
  return registry;
}

/**
 * Figures of the whole fleet, read from the database at scrape time: served at GET /metrics/fleet
 * so that they are scraped once (one target, through the balancer), not summed or duplicated over
 * every API instance and worker.
 */
function registerFleetMetrics(app: FastifyInstance, db: Db) {
  const registry = new Registry();
  ledgerHoldsGauge(registry, db);
  new Gauge({
    name: 'shipping_purchases_pending',
    help: 'Shipments whose purchase is under way, by livemode.',
    labelNames: ['livemode'] as const,
    registers: [registry],
    async collect() {
      const result = await db.execute(sql`select livemode, count(*)::int as n from shipments where status = 'pending' group by livemode`);
      this.reset();
      this.set({ livemode: 'true' }, 0);
      this.set({ livemode: 'false' }, 0);
      for (const row of result.rows as { livemode: boolean; n: number }[]) this.set({ livemode: String(row.livemode) }, Number(row.n));
    },
  });
  app.get('/metrics/fleet', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
