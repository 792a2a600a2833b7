/**
 * The worker process of `npm run bench -- sdk-floor`: the SDK's defaults, as our workers run it
 * (reused V8 context, its deadlock guard), serving the workflow queue and the "carrier" queue in one
 * process, with no-op activities. Arguments: <temporal address> <task queue>.
 */
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { parseConfig } from '../../../config/index.js';
import { floorActivities as activities, floorCarrierQueue } from './shape.js';

const [address, taskQueue] = process.argv.slice(2);
Runtime.install({ logger: new DefaultLogger('ERROR') });
const connection = await NativeConnection.connect({ address });
const workflowBundle = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
  logger: new DefaultLogger('WARN'),
});
const workers = await Promise.all([
  // Our workers' cache size (WORKER_MAX_CACHED_WORKFLOWS' default); the rest is the SDK's defaults.
  Worker.create({ connection, taskQueue, workflowBundle, activities, maxCachedWorkflows: parseConfig({}).worker.maxCachedWorkflows }),
  Worker.create({ connection, taskQueue: floorCarrierQueue(taskQueue), activities }),
]);
process.stdout.write('ready\n');
process.on('SIGTERM', () => workers.forEach((w) => w.shutdown()));
await Promise.all(workers.map((w) => w.run()));
await connection.close();
