import http from 'node:http';
import { request } from 'undici';
import { createWorkerMetrics, type WorkerMetrics } from '../activities/index.js';
import { ledgerHoldsGauge, type Db } from '../db/index.js';

/**
 * A worker's Prometheus endpoint on `port`: the Temporal runtime's own metrics (exported by the
 * runtime on the private loopback port `runtimePort`, see installWorkerRuntime, and passed through)
 * followed by ours, the ledger's holds outstanding among them (from `db`).
 */
export async function serveWorkerMetrics(o: { port: number; runtimePort: number; db: Db }): Promise<{ metrics: WorkerMetrics; close(): Promise<void> }> {
  const { runtimePort } = o;
  const metrics = createWorkerMetrics();
  ledgerHoldsGauge(metrics.registry, o.db);
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    void (async () => {
      let runtime = '';
      try {
        runtime = await (await request(`http://127.0.0.1:${runtimePort}/metrics`)).body.text();
      } catch {
        // The runtime's exporter starts with the first worker; ours are served regardless.
      }
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(`${runtime.trimEnd()}\n${await metrics.registry.metrics()}`);
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(o.port, resolve));
  return { metrics, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
