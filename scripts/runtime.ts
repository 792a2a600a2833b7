import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import pino, { type Logger } from 'pino';
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase, type Database } from '../db/index.js';
import { parseConfig, type Config } from '../domain/index.js';

/** Reads and validates the configuration, or exits with a clear message (style.md). */
export function loadConfig(): Config {
  try {
    return parseConfig(process.env);
  } catch (err) {
    process.stderr.write(`configuration error: ${(err as Error).message}\n`);
    process.exit(2);
  }
}

export function createLogger(config: Config, name: string): Logger {
  return pino({
    name,
    level: config.logLevel,
    // Secrets never reach a log line, even when a header or body is logged by mistake.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.secret', '*.key', 'key', 'secret'],
      censor: '[redacted]',
    },
  });
}

/** DATABASE_URL, or the embedded PostgreSQL under DATA_DIR; migrated either way. */
export async function connectDatabase(config: Config, log: Logger): Promise<Database & { stopEmbedded(): Promise<void> }> {
  let stopEmbedded: () => Promise<void> = async () => undefined;
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await ensureEmbeddedPostgres(config.dataDir, (line) => log.debug({ postgres: line }));
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const database = openDatabase(url);
  await migrateDatabase(database);
  return { ...database, stopEmbedded };
}

export async function connectTemporal(config: Config, address: string) {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: config.temporalNamespace });
  return { connection, client };
}

export async function connectNative(address: string) {
  return NativeConnection.connect({ address });
}
