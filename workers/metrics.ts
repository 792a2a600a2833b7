import http from 'node:http';
import net from 'node:net';
import { Runtime } from '@temporalio/worker';
import { request } from 'undici';
import { createWorkerMetrics, type WorkerMetrics } from '../activities/index.js';

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A worker's Prometheus endpoint on `port`: the Temporal runtime's own metrics (exported by the
 * runtime on a private loopback port and passed through) followed by ours. Install before any worker
 * or connection is created.
 */
export async function serveWorkerMetrics(o: { port: number }): Promise<{ metrics: WorkerMetrics; close(): Promise<void> }> {
  const runtimePort = await freeLoopbackPort();
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${runtimePort}` } } } });
  const metrics = createWorkerMetrics();
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
