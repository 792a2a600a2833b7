import path from 'node:path';
import pino from 'pino';
import { runningPostmaster, type Db } from '../../db/index.js';
import { formatAmount } from '../../domain/index.js';
import type { Config } from '../../config/index.js';
import { adminCommands } from '../../admin/index.js';
import { connectDatabase } from '../../runtime/index.js';
import type { Mode } from './options.js';

/** The bench cannot set itself up (no database to create its account in): exit with the message. */
export class BenchSetupError extends Error {}

export interface DemoAccount {
  accountId: string;
  keys: Record<Mode, string>;
  keyIds: Record<Mode, string>;
}

/**
 * The bench's own keys are far above the default 100 requests per 10 s, so it measures the API
 * and not the rate limiter.
 */
const BENCH_RATE_LIMIT = '1000000/1';


export interface StackDatabase {
  db: Db;
  admin: ReturnType<typeof adminCommands>;
  close(): Promise<void>;
}

/** The stack's database, as `npm start` and `npm run admin` open it. Never starts a PostgreSQL of its own. */
export async function openStackDatabase(config: Config): Promise<StackDatabase> {
  if (!config.databaseUrl && !runningPostmaster(config.dataDir)) {
    throw new BenchSetupError(
      `no running database under DATA_DIR=${path.resolve(config.dataDir)}: run the bench with the DATA_DIR ` +
        '(or DATABASE_URL) of the running `npm start`, or pass --key',
    );
  }
  const log = pino({ name: 'bench', level: 'warn' }, pino.destination(2));
  const database = await connectDatabase(config, log);
  return {
    db: database.db,
    admin: adminCommands(database.db),
    async close() {
      await database.close();
      await database.stopEmbedded();
    },
  };
}

/** A fresh wallet account with API access and a sandbox and a live key with every scope. */
export async function createDemoAccount(admin: StackDatabase['admin']): Promise<DemoAccount> {
  const { id } = await admin.createAccount({ name: `Bench ${new Date().toISOString()}`, funding: 'wallet' });
  await admin.enableApi(id);
  const test = await admin.createKey(id, { mode: 'test', scopes: 'all', rateLimit: BENCH_RATE_LIMIT });
  const live = await admin.createKey(id, { mode: 'live', scopes: 'all', rateLimit: BENCH_RATE_LIMIT });
  return { accountId: id, keys: { test: test.key, live: live.key }, keyIds: { test: test.id, live: live.id } };
}

/**
 * Enough for every purchase the run may make at `gross` each, with a margin for price rounding
 * and the labels scenario's own purchase; a sandbox run moves no money but gets the same wallet.
 */
export function topUpFor(purchases: number, gross: number): string {
  const minor = Math.max(100_00, Math.ceil(gross * (purchases + 2) * 1.2));
  return formatAmount(minor);
}
