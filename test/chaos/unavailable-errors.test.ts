import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDependencyUnavailable } from '../../api/problem.js';
import { openDatabase } from '../../db/index.js';
import { freePort } from '../../util/index.js';

// Fault 12: what PostgreSQL and Temporal really throw when they are not there is recognised as
// "unavailable" (503 service_unavailable with Retry-After), and a bug is not.
async function thrown(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
}

describe('dependency unavailability', () => {
  it('recognises a Temporal frontend that is down', async () => {
    const port = await freePort();
    const connection = await Connection.lazy({ address: `127.0.0.1:${port}`, connectTimeout: '1s' });
    try {
      const client = new Client({ connection });
      const err = await thrown(client.workflow.start('nothing', { taskQueue: 'q', workflowId: 'w' }));
      expect(isDependencyUnavailable(err)).toBe(true);
    } finally {
      await connection.close();
    }
    expect(isDependencyUnavailable(await thrown(Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: '1s' })))).toBe(true);
  });

  it('recognises a PostgreSQL that is down, through drizzle and through pg', async () => {
    const port = await freePort();
    const database = openDatabase(`postgres://u:p@127.0.0.1:${port}/x`, { max: 1 });
    try {
      expect(isDependencyUnavailable(await thrown(database.pool.query('select 1')))).toBe(true);
    } finally {
      await database.close();
    }
    const client = new pg.Client({ connectionString: `postgres://u:p@127.0.0.1:${port}/x` });
    expect(isDependencyUnavailable(await thrown(client.connect()))).toBe(true);
  });

  it('does not hide a bug as unavailability', () => {
    expect(isDependencyUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isDependencyUnavailable(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(false);
  });
});
