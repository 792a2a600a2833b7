/**
 * Production entry point of the API: `npm run api`. SIGTERM stops accepting connections, answers
 * every request already in flight (up to API_SHUTDOWN_GRACE_MS), then exits.
 */
import { carrierRegistryFor, connectDatabase, connectTemporal, createLogger, loadConfig, startTracingFromEnv, takeOverSignals } from '../runtime/index.js';
import { createApp } from './app.js';

const config = loadConfig();
const log = createLogger(config, 'api');
const tracing = startTracingFromEnv('parcel-shipping-api');
const database = await connectDatabase(config, log);
const temporal = await connectTemporal(config, config.temporalAddress ?? '127.0.0.1:7233', log);
const app = await createApp({ config, db: database.db, temporal: temporal.client, catalog: carrierRegistryFor(config), logger: log, tracer: tracing?.tracer });
await app.listen({ port: config.port, host: config.host });

takeOverSignals(async (signal) => {
  log.info({ signal, graceMs: config.apiShutdownGraceMs }, 'shutting down: finishing in-flight requests');
  const deadline = setTimeout(() => {
    log.warn('grace period over; exiting with requests still open');
    process.exit(1);
  }, config.apiShutdownGraceMs);
  deadline.unref();
  await app.close();
  log.info('http server closed');
  await temporal.connection.close();
  log.info('temporal connection closed');
  await database.close();
  await database.stopEmbedded();
  await tracing?.shutdown();
  log.info('stopped');
  process.exit(0);
});
