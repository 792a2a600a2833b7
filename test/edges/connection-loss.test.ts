import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../db/index.js';

// A PostgreSQL restart (or a failover) ends every connection, the ones a transaction holds between
// two statements included. The pool's handler only covers idle connections: a connection lost while
// checked out emitted an 'error' event nobody listened to, which killed the whole process (a worker
// in a chaos run's PostgreSQL restart, with every activity it was running). Now the statement under
// way fails, the transaction with it, and the pool carries on with new connections.
let database: Database;
let admin: pg.Client;
beforeAll(async () => {
  database = openDatabase(inject('databaseUrl'), { max: 2 });
  admin = new pg.Client({ connectionString: inject('databaseUrl') });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await database?.close();
});

/** Ends the server side of the session `pid`, as a restart does. */
async function terminate(pid: number): Promise<void> {
  await admin.query('select pg_terminate_backend($1)', [pid]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a connection lost while checked out', () => {
  it('fails the transaction that holds it and leaves the process and the pool working', async () => {
    const attempt = database.db.transaction(async (tx) => {
      const { rows } = await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`);
      await terminate(rows[0].pid);
      // Between two statements, as a transaction waits on its own JavaScript or an activity's call.
      await sleep(300);
      await tx.execute(sql`select 1`);
    });
    await expect(attempt).rejects.toThrow();
    const { rows } = await database.db.execute<{ ok: number }>(sql`select 1 as ok`);
    expect(rows[0].ok).toBe(1);
  });

  it('does not stop the process when the client is held outside a transaction', async () => {
    const client = await database.pool.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    await terminate(rows[0].pid);
    await sleep(300);
    await expect(client.query('select 1')).rejects.toThrow();
    client.release(true);
    const again = await database.db.execute<{ ok: number }>(sql`select 1 as ok`);
    expect(again.rows[0].ok).toBe(1);
  });
});
