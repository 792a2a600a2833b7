import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as core from './schema.js';
import * as portal from './schema-portal.js';

/** Every table: the service's own (schema.ts) and the portal's (schema-portal.ts, which references accounts). */
const schema = { ...core, ...portal };

export type Db = NodePgDatabase<typeof schema>;
/** A transaction: queries that take one can join a caller's larger transaction. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * A unique violation (of `table`'s indexes, when given), however deep drizzle wrapped the driver's
 * error: the one database error our queries answer as a result (a key or a record already there).
 */
export function isUniqueViolation(err: unknown, table?: string): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const pgErr = e as { code?: unknown; table?: unknown };
    if (pgErr.code === '23505') return table === undefined || pgErr.table === table;
  }
  return false;
}

// bigint columns (money, counts) come back as numbers: amounts stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * Time-outs that bound every way a connection can get stuck: a server that does not answer
 * the connect, a statement that runs away, a row lock held by another session, a session that left a
 * transaction open (a client that died mid-transaction still holds its row locks until the server
 * notices), and a half-open TCP connection after a failover, which keepalives find on both sides.
 */
export interface PoolTimeouts {
  connectMs: number;
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
  /** Client side: a query with no answer at all (the server vanished) fails after this long. */
  queryMs: number;
  keepAliveIdleMs: number;
}

export const DEFAULT_POOL_TIMEOUTS: PoolTimeouts = {
  connectMs: 5_000,
  statementMs: 15_000,
  lockMs: 5_000,
  idleInTransactionMs: 10_000,
  queryMs: 20_000,
  keepAliveIdleMs: 10_000,
};

export function openDatabase(url: string, options: { max?: number; timeouts?: Partial<PoolTimeouts> } = {}): Database {
  const t = { ...DEFAULT_POOL_TIMEOUTS, ...options.timeouts };
  const keepAliveS = Math.max(1, Math.round(t.keepAliveIdleMs / 1000));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: t.connectMs,
    statement_timeout: t.statementMs,
    lock_timeout: t.lockMs,
    idle_in_transaction_session_timeout: t.idleInTransactionMs,
    query_timeout: t.queryMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: t.keepAliveIdleMs,
    // The server's side of keepalive: a client that vanished mid-transaction loses its locks in
    // seconds, not after the kernel's two hours.
    options: `-c tcp_keepalives_idle=${keepAliveS} -c tcp_keepalives_interval=${keepAliveS} -c tcp_keepalives_count=3`,
    // Idle connections are dropped before a restarted server's are found dead by a query.
    idleTimeoutMillis: 10_000,
  });
  // An idle client's error (the server restarted) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor a checked-out one's: the pool listens only while a client is idle, and a connection lost
  // between two statements of a transaction (a restart, a failover) emits an 'error' event nobody
  // hears, which would end the process. The statement under way, or the next, fails with the error, and
  // the pool drops the client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}

// Next to this file when run from source; compiled JavaScript (dist/db) reads the committed SQL in db/.
const MIGRATIONS = [new URL('./migrations', import.meta.url), new URL('../../db/migrations', import.meta.url)]
  .map((u) => fileURLToPath(u))
  .find((dir) => existsSync(path.join(dir, 'meta', '_journal.json'))) ?? fileURLToPath(new URL('./migrations', import.meta.url));

/** Applies the committed SQL migrations; safe to run from several processes at once. */
export async function migrateDatabase(database: Database): Promise<void> {
  const client = await database.pool.connect();
  try {
    // One migrator at a time across processes (API, workers and tests may start together).
    // Waiting for another process's migration, or a migration itself, may take longer than a request may.
    await client.query('set statement_timeout = 0');
    await client.query('set lock_timeout = 0');
    await client.query('select pg_advisory_lock(727274)');
    await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS });
  } finally {
    await client.query('select pg_advisory_unlock(727274)').catch(() => undefined);
    await client.query('reset statement_timeout; reset lock_timeout').catch(() => undefined);
    client.release();
  }
}
