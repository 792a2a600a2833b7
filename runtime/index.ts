/**
 * The runtime room's door: what every service process (API, workers, the admin and ops commands,
 * the developer tools) needs to start: configuration with every carrier's, logger, database,
 * Temporal connections with the codec, tracing, signal handling, and the carrier registry as
 * configured.
 */
export {
  connectDatabase,
  connectNative,
  connectTemporal,
  createLogger,
  loadConfig,
  startTracingFromEnv,
  takeOverSignals,
} from './process.js';
export { startTracing } from './tracing.js';
export type { Tracing } from './tracing.js';
export { CARRIER_CONFIG, carrierRegistryFor, parseServiceConfig } from './carriers.js';
