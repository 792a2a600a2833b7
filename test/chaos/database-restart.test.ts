import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrateDatabase, openDatabase, startRestartablePostgres, type Database, type RestartableHandle } from '../../db/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestStack } from '../support/stack.js';

// Faults 9 and 12: a PostgreSQL of this file's own (durable, as in production) that the tests stop,
// start, and lock up, under a real API and real workers.
let dir: string;
let pg: RestartableHandle;
let stack: TestStack;
let sim: ReturnType<typeof simControl>;
const stuck: Database[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'parcel-dbrestart-'));
  await chmod(dir, 0o755);
  pg = await startRestartablePostgres(dir, { durable: true });
  const database = openDatabase(pg.url, { max: 1 });
  await migrateDatabase(database);
  await database.close();
  stack = await startTestStack(
    { purchaseWaitMs: 2_000 },
    {
      infra: {
        databaseUrl: pg.url,
        temporalAddress: inject('temporalAddress'),
        carrierSimUrl: inject('carrierSimUrl'),
        workflowBundlePath: inject('workflowBundlePath'),
      },
    },
  );
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  for (const d of stuck) await d.close().catch(() => undefined);
  await stack?.stop().catch(() => undefined);
  await pg?.stop().catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const shipment = (name: string) => ({ service: 'acme_ground', from: address(), to: address({ name }), parcel: parcel() });

async function settled(key: string, id: string) {
  return eventually(async () => {
    const s = await call(stack, 'GET', `/api/v1/shipments/${id}`, { key }).catch(() => undefined);
    return s && s.status === 200 && s.body.status !== 'pending' ? s.body : undefined;
  }, 90_000, `shipment ${id} to settle`);
}

describe('a PostgreSQL restart', () => {
  it('answers 503 service_unavailable with Retry-After while the database is down, never 500, and the purchase then completes', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const key = `k-${randomUUID()}`;
    await pg.stop();
    try {
      const read = await call(stack, 'GET', '/api/v1/shipments/shp_00000000000000000000000000', { key: acct.liveKey });
      expect(read.status, read.text).toBe(503);
      expect(read.body.code).toBe('service_unavailable');
      expect(read.headers['retry-after']).toBeDefined();
      const buy = await call(stack, 'POST', '/api/v1/shipments', {
        key: acct.liveKey,
        body: shipment('Down Time'),
        headers: { 'idempotency-key': key },
      });
      expect(buy.status, buy.text).toBe(503);
      expect(buy.body.code).toBe('service_unavailable');
      expect(buy.headers['retry-after']).toBeDefined();
    } finally {
      await pg.start();
    }
    // The careful client retries with the same key once the database is back.
    const again = await eventually(async () => {
      const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: shipment('Down Time'), headers: { 'idempotency-key': key } });
      return a.status === 503 ? undefined : a;
    }, 30_000, 'the API to answer again');
    expect([201, 202], again.text).toContain(again.status);
    const done = await settled(acct.liveKey, again.body.id);
    expect(done.status).toBe('purchased');
    expect(await sim.purchases(done.id)).toHaveLength(1);
    await expectLedgerConsistent(stack, acct.id);
  });

  it('survives a restart in the middle of a purchase: one label, one charge, nothing left held, ended within seconds of the restart', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    const marker = `dbrestart-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 2_500, times: 1, match: marker });
    const first = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: shipment(marker) });
    expect(first.status, first.text).toBe(202);
    // The carrier is committing now; the database goes away under the capture that follows.
    await pg.stop();
    await new Promise((r) => setTimeout(r, 3_000));
    await pg.start();
    const backAt = Date.now();
    const done = await settled(acct.liveKey, first.body.id);
    const endedAfter = Date.now() - backAt;
    process.stdout.write(`PostgreSQL restart: the purchase ended ${(endedAfter / 1000).toFixed(1)} s after it was back\n`);
    expect(done.status).toBe('purchased');
    // Its steps retry at most 2 s apart (workflows/proxies.ts): within 10 s of the database being
    // back on a quiet machine; a busy one is allowed 15 s.
    expect(endedAfter).toBeLessThan(15_000);
    expect(await sim.purchases(done.id)).toHaveLength(1);
    const account = await expectLedgerConsistent(stack, acct.id);
    expect(account.pending).toBe(0);
  });
});

describe('a session that died holding an account row lock (fault 9)', () => {
  it('loses its lock to the idle-in-transaction time-out, so the account can buy again', async () => {
    const acct = await createAccount(stack, { topUp: '50.00' });
    // A process of ours that stopped mid-transaction: the row lock stays with its session.
    const other = openDatabase(pg.url, { max: 1 });
    stuck.push(other);
    const client = await other.pool.connect();
    client.on('error', () => undefined);
    await client.query('begin');
    await client.query('select 1 from accounts where id = $1 for update', [acct.id]);
    try {
      // A 503 (the lock time-out, answered while the lock is held) is retried.
      const buy = await eventually(async () => {
        const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: shipment('Lock Holder') });
        return a.status === 503 ? undefined : a;
      }, 60_000, 'the purchase to be accepted');
      expect([201, 202], buy.text).toContain(buy.status);
      const done = await settled(acct.liveKey, buy.body.id);
      expect(done.status).toBe('purchased');
      await expectLedgerConsistent(stack, acct.id);
    } finally {
      client.release(true);
    }
  });
});
