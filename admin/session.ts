/**
 * What `npm run admin` runs once its arguments are known to be right: the configuration, the
 * database (DATABASE_URL, or the embedded PostgreSQL that `npm start` uses in the same DATA_DIR,
 * started if it is not running), one command, its JSON on stdout. admin/main.ts imports it only
 * then, so that a mistyped command or --help loads none of it.
 */
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase } from '../db/index.js';
import { type Config, loadConfig } from '../config/index.js';
import { AdminError, adminCommands, type AdminCommands } from './commands.js';

/** Runs one command; the process's exit status: 0, 1 for a refused command, 2 for a bad configuration. */
export async function runAdminCommand(run: (admin: AdminCommands) => Promise<unknown>): Promise<number> {
  let config;
  try {
    config = await adminConfig();
  } catch (err) {
    process.stderr.write(`admin: configuration error: ${(err as Error).message}\n`);
    return 2;
  }
  const embedded = config.databaseUrl ? null : await ensureEmbeddedPostgres(config.dataDir);
  const database = openDatabase(config.databaseUrl ?? embedded!.url, { max: 2 });
  try {
    await migrateDatabase(database);
    const result = await run(adminCommands(database.db));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof AdminError) {
      process.stderr.write(`admin: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await database.close();
    await embedded?.stop();
  }
}

/**
 * The configuration, read as every process reads it. The carriers count only in production, where
 * each carrier's URL and webhook secret are required and a real carrier's settings are all set or
 * none (config/config.ts), so the carriers (their
 * adapters, their HTTP client, Temporal's failure types) are loaded only there, or to name the
 * problems of a configuration that is refused.
 */
async function adminConfig(): Promise<Config> {
  let config: Config | undefined;
  try {
    config = loadConfig();
  } catch {
    // Read again below with the carriers, which names every problem, theirs included.
  }
  if (config && !config.production) return config;
  const { carrierConfigOptions } = await import('./carrier-codes.js');
  return loadConfig(carrierConfigOptions());
}
