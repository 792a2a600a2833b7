/**
 * The runtime room's door: what every process (API, workers, codec server, admin and the
 * developer scripts) needs to start: configuration, logger, database, Temporal connections,
 * tracing, signal handling, and the carrier registry as configured.
 */
export * from './process.js';
export * from './tracing.js';
export * from './carriers.js';
