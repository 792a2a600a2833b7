/**
 * Production entry point of a worker: `npm run worker -- <group> [<group>…]` where a group is
 * `shipments`, `carriers`, `carrier-<code>`, `webhooks` or `all`.
 */
import { connectDatabase, connectNative, connectTemporal, createLogger, loadConfig } from '../scripts/runtime.js';
import { carrierRegistryFor } from './activities.js';
import { createWorkers, type QueueGroup } from './run.js';

const config = loadConfig();
const log = createLogger(config, 'worker');
const args = process.argv.slice(2);
if (!args.length) {
  process.stderr.write('usage: npm run worker -- shipments|carriers|carrier-<code>|webhooks|all …\n');
  process.exit(2);
}
const groups = (args.includes('all') ? ['shipments', 'carriers', 'webhooks'] : args) as QueueGroup[];
const database = await connectDatabase(config, log);
const connection = await connectNative(config.temporalAddress ?? '127.0.0.1:7233');
const temporal = await connectTemporal(config, config.temporalAddress ?? '127.0.0.1:7233');
const fleet = await createWorkers({ config, db: database.db, connection, registry: carrierRegistryFor(config), groups, client: temporal.client });
log.info({ groups, queues: fleet.workers.map((w) => w.options.taskQueue) }, 'workers started');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log.info({ signal }, 'draining workers');
    void fleet.shutdown();
  });
}
await fleet.run();
await temporal.connection.close();
await connection.close();
await database.close();
await database.stopEmbedded();
log.info('workers stopped');
