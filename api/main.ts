/** Production entry point of the API: `npm run api`. Needs TEMPORAL_ADDRESS (or the local default). */
import { carrierRegistryFor } from '../workers/activities.js';
import { connectDatabase, connectTemporal, createLogger, loadConfig } from '../scripts/runtime.js';
import { createApp } from './app.js';

const config = loadConfig();
const log = createLogger(config, 'api');
const database = await connectDatabase(config, log);
const temporal = await connectTemporal(config, config.temporalAddress ?? '127.0.0.1:7233');
const app = await createApp({ config, db: database.db, temporal: temporal.client, catalog: carrierRegistryFor(config), logger: log });
await app.listen({ port: config.port, host: config.host });

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    void app
      .close()
      .then(() => temporal.connection.close())
      .then(() => database.close())
      .then(() => database.stopEmbedded())
      .finally(() => process.exit(0));
  });
}
