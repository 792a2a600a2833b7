/**
 * Production entry point of a worker: `npm run worker -- <group> [<group>…]` where a group is
 * `shipments` (which is `purchases` and `tracking`), `purchases`, `tracking`, `carriers`,
 * `carrier-<code>`, `webhooks` or `all`. SIGTERM drains: no new tasks are
 * taken, tasks under way get WORKER_SHUTDOWN_GRACE_MS to finish, and Temporal hands anything left
 * to another worker.
 */
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import path from 'node:path';
import { carrierRegistryFor, connectDatabase, connectNative, connectTemporal, createLogger, loadConfig, startTracingFromEnv, takeOverSignals } from '../runtime/index.js';
import { ALL_CARRIER_MODULES } from '../carriers/index.js';
import { freePort } from '../util/index.js';
import { installWorkerRuntime } from './logging.js';
import { serveWorkerMetrics } from './metrics.js';
import { createWorkers, tracedBundlePath, type QueueGroup } from './run.js';
import { watchEventLoop } from './slow-steps.js';

// Every carrier's own queues; a worker polls one only where the carrier is enabled (README).
const GROUPS = ['shipments', 'purchases', 'tracking', 'carriers', ...ALL_CARRIER_MODULES.map((m) => `carrier-${m.definition.code}`), 'webhooks', 'all'];
const USAGE = `usage: npm run worker -- <group> [<group>…]
  groups: ${GROUPS.join(', ')}\n`;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = args.filter((a) => !GROUPS.includes(a));
if (!args.length || unknown.length) {
  process.stderr.write(`${unknown.length ? `worker: unknown queue group "${unknown[0]}"\n` : ''}${USAGE}`);
  process.exit(2);
}
const config = loadConfig();
const log = createLogger(config, 'worker');
const tracing = startTracingFromEnv('parcel-shipping-worker');
const groups = (args.includes('all') ? ['shipments', 'carriers', 'webhooks'] : args) as QueueGroup[];
const registry = carrierRegistryFor(config);
// A carrier's own queue is polled only where the carrier is on: naming a disabled one is a mistake to fix.
const disabled = groups.filter((g) => g.startsWith('carrier-') && !registry.carrier(g.slice('carrier-'.length)));
if (disabled.length) {
  log.error({ groups: disabled }, 'carrier not enabled: its URL and every one of its credentials must be set (README: Configuration)');
  process.exit(2);
}
const database = await connectDatabase(config, log);
// Signals are ours from here on: a SIGTERM while the workers start still drains cleanly.
let stopping = false;
let fleetRef: { shutdown(): Promise<void> } | undefined;
takeOverSignals(async (signal) => {
  log.info({ signal, graceMs: config.worker.shutdownGraceMs }, 'draining workers');
  stopping = true;
  await fleetRef?.shutdown();
});
// Before any connection or worker: the SDK's logs (and the workflows') as JSON lines through `log`.
const runtimeMetricsPort = config.worker.metricsPort ? await freePort() : undefined;
installWorkerRuntime(log, { prometheusPort: runtimeMetricsPort });
const served = runtimeMetricsPort
  ? await serveWorkerMetrics({ port: config.worker.metricsPort!, runtimePort: runtimeMetricsPort, db: database.db })
  : undefined;
const address = config.temporalAddress ?? '127.0.0.1:7233';
const connection = await connectNative(address, log);
const temporal = await connectTemporal(config, address, log);
// The workflow bundle built at build time; bundling at start is for development only.
// With tracing on, the bundle that carries tracing's workflow interceptors.
const plainBundle = config.worker.workflowBundlePath && path.resolve(config.worker.workflowBundlePath);
const bundlePath = plainBundle && tracing ? tracedBundlePath(plainBundle) : plainBundle;
if (bundlePath && !existsSync(bundlePath)) {
  log.error({ bundlePath }, 'the workflow bundle is missing: run npm run build:workflows');
  process.exit(2);
}
const workflowBundle = bundlePath ? { codePath: bundlePath } : undefined;
const fleet = await createWorkers({
  config,
  db: database.db,
  connection,
  registry,
  groups,
  client: temporal.client,
  workflowBundle,
  metrics: served?.metrics,
  tracing,
});
log.info(
  { groups, queues: fleet.workers.map((w) => w.options.taskQueue), nice: getPriority(), bundle: workflowBundle ? bundlePath : 'from source' },
  'workers started',
);

fleetRef = fleet;
// A stalled event loop holds every activity and local activity of this process: say so once a window.
watchEventLoop((fields, msg) => log.warn(fields, msg));
const running = fleet.run();
if (stopping) await fleet.shutdown();
await running;
await served?.close();
await temporal.connection.close();
await connection.close();
await database.close();
await database.stopEmbedded();
await tracing?.shutdown();
log.info('workers stopped');
