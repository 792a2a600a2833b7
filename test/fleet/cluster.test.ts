import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/index.js';
import { SEARCH_ATTRIBUTES, shipmentWorkflowId } from '../../contract/index.js';
import { openDatabase, type Database } from '../../db/index.js';
import { adminCommands } from '../../admin/index.js';
import { writeBuildB } from './fixtures/build-b.js';
import { encryptingDataConverter } from '../../codec/index.js';
import { buildWorkflowBundle, startFleet, workerLayout, type Fleet, type WorkerBuild } from '../../tools/fleet/fleet.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, parcel, type TestAccount } from '../support/stack.js';
import { startReceiver, specVerify, type Receiver } from '../webhooks/receiver.js';

// The production topology, brought up once for this file by the code of `npm run fleet`: PostgreSQL
// holding our database and Temporal's, the Temporal server as four processes (frontend, history,
// matching, worker) with four history shards, two API processes, worker processes per queue group
// on a worker deployment version, and the carrier simulator.
let fleet: Fleet;
let dataDir: string;
let database: Database;
let temporalDb: pg.Client;
let connection: Connection;
let client: Client;
let sim: ReturnType<typeof simControl>;
const log = (msg: string) => process.stderr.write(`[fleet-test] ${msg}\n`);

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'parcel-fleet-'));
  fleet = await startFleet({
    dataDir,
    ports: 'free',
    // The UI is best effort and not what these tests look at; it is left out to keep the run short.
    ui: false,
    log,
    appEnv: {
      // Purchases answer 202 quickly so the tests can act while they are under way.
      PURCHASE_WAIT_MS: '1000',
      // Hours between tracking polls scaled down to a second.
      TRACKING_POLL_MIN_MS: '500',
      TRACKING_POLL_MAX_MS: '1500',
      WEBHOOK_ALLOW_PRIVATE: '1',
      CARRIER_TIMEOUT_MS: '10000',
    },
  });
  database = openDatabase(fleet.databaseUrl, { max: 3 });
  temporalDb = new pg.Client({ connectionString: fleet.temporalDatabaseUrl });
  await temporalDb.connect();
  connection = await Connection.connect({ address: fleet.temporalAddress });
  // The fleet's processes encrypt payloads (codec/): so does this client, with the same (development) keys.
  client = new Client({ connection, namespace: fleet.namespace, dataConverter: encryptingDataConverter(parseConfig(process.env)) });
  sim = simControl(fleet.simUrl);
}, 25 * 60_000);

afterAll(async () => {
  await connection?.close().catch(() => undefined);
  await temporalDb?.end().catch(() => undefined);
  await database?.close().catch(() => undefined);
  await fleet?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 120_000);

const api = (i: number) => ({ url: fleet.apiUrls[i % fleet.apiUrls.length] });

async function account(topUp = '200.00'): Promise<TestAccount> {
  const admin = adminCommands(database.db);
  const { id } = await admin.createAccount({ name: 'Fleet Ltd', funding: 'wallet' });
  await admin.enableApi(id);
  await admin.topUp(id, topUp);
  return { id, testKey: (await admin.createKey(id, { mode: 'test' })).key, liveKey: (await admin.createKey(id, { mode: 'live' })).key };
}

async function buy(i: number, key: string, to = address()): Promise<string> {
  const res = await call(api(i), 'POST', '/api/v1/shipments', {
    key,
    headers: { 'idempotency-key': randomUUID() },
    body: { service: 'acme_ground', from: address(), to, parcel: parcel() },
  });
  expect([201, 202], res.text).toContain(res.status);
  return res.body.id as string;
}

async function until(i: number, key: string, id: string, status: string, ms = 90_000) {
  return eventually(async () => {
    const s = await call(api(i), 'GET', `/api/v1/shipments/${id}`, { key });
    return s.body?.status === status ? s.body : undefined;
  }, ms, `${id} to be ${status}`);
}

/** Every workflow task failure in a shipment's history (runs included): non-determinism shows up here. */
async function workflowTaskFailures(shipmentId: string): Promise<string[]> {
  const failures: string[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = '${shipmentWorkflowId(shipmentId)}'` })) {
    const history = await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
    for (const e of history.events ?? []) {
      if (e.workflowTaskFailedEventAttributes) failures.push(`${w.runId}: ${e.workflowTaskFailedEventAttributes.failure?.message ?? 'failed'}`);
    }
  }
  return failures;
}

describe('the fleet: a Temporal cluster on PostgreSQL, two APIs, workers per queue', () => {
  it('serves purchases, voids, tracking and signed webhook deliveries through both API instances', async () => {
    const acct = await account();
    const receiver: Receiver = await startReceiver();
    try {
      const ep = await call(api(0), 'POST', '/api/v1/webhook_endpoints', { key: acct.liveKey, body: { url: receiver.url } });
      expect(ep.status, ep.text).toBe(201);
      // Two purchases through each API instance; each read back through the other one.
      const ids = await Promise.all([0, 1, 0, 1].map((i) => buy(i, acct.liveKey)));
      const bought = await Promise.all(ids.map((id, i) => until(i + 1, acct.liveKey, id, 'purchased')));
      for (const s of bought) expect(await sim.purchases(s.id)).toHaveLength(1);

      // A void through the second instance.
      const v = await call(api(1), 'POST', `/api/v1/shipments/${ids[0]}/void`, { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() } });
      expect([200, 202], v.text).toContain(v.status);
      await until(0, acct.liveKey, ids[0], 'voided');

      // Tracking from the carrier: scans the workers poll, to delivered, read through the first instance.
      const tracked = bought[1];
      await sim.scan(tracked.tracking.number, 'in_transit', 'collected');
      await sim.scan(tracked.tracking.number, 'delivered', 'handed over');
      await until(1, acct.liveKey, tracked.id, 'delivered');
      const t = await call(api(0), 'GET', `/api/v1/tracking/${tracked.tracking.number}`, { key: acct.liveKey });
      expect(t.body.events.map((e: any) => e.status)).toEqual(['in_transit', 'delivered']);

      // Webhooks: every event of these shipments delivered to the endpoint, signed with its secret.
      const wanted = ['shipment.purchased', 'shipment.voided', 'tracking.updated', 'shipment.delivered'];
      await eventually(async () => {
        const types = new Set(receiver.received.map((r) => r.body?.type));
        return wanted.every((w) => types.has(w)) ? true : undefined;
      }, 60_000, 'webhook deliveries');
      for (const r of receiver.received) {
        expect(specVerify(r.raw, r.headers['x-svc-signature'] as string, ep.body.secret, r.at / 1000)).toBe(true);
      }
    } finally {
      await receiver.close();
    }
  }, 300_000);

  it('keeps Temporal state in PostgreSQL, spread over several history shards', async () => {
    const acct = await account();
    const ids = await Promise.all([0, 1, 0, 1, 0, 1].map((i) => buy(i, acct.liveKey)));
    await Promise.all(ids.map((id) => until(0, acct.liveKey, id, 'purchased')));
    const { rows } = await temporalDb.query<{ workflow_id: string; shard_id: number }>(
      'SELECT workflow_id, shard_id FROM current_executions WHERE workflow_id = ANY($1)',
      [ids.map(shipmentWorkflowId)],
    );
    expect(rows.map((r) => r.workflow_id).sort()).toEqual(ids.map(shipmentWorkflowId).sort());
    const shards = await temporalDb.query<{ n: string }>('SELECT count(*) AS n FROM shards');
    expect(Number(shards.rows[0].n)).toBe(4);
    const used = await temporalDb.query<{ n: string }>('SELECT count(DISTINCT shard_id) AS n FROM current_executions');
    expect(Number(used.rows[0].n)).toBeGreaterThan(1);
    // Visibility (list and search) in its own database, with our search attributes.
    const vis = new pg.Client({ connectionString: fleet.temporalDatabaseUrl.replace(/\/temporal$/, '/temporal_visibility') });
    await vis.connect();
    try {
      const v = await vis.query('SELECT workflow_id FROM executions_visibility WHERE workflow_id = ANY($1)', [ids.map(shipmentWorkflowId)]);
      expect(v.rowCount).toBe(ids.length);
    } finally {
      await vis.end();
    }
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: fleet.namespace });
    for (const name of Object.keys(SEARCH_ATTRIBUTES)) expect(customAttributes?.[name], name).toBeDefined();
    let listed = 0;
    for await (const w of client.workflow.list({ query: `AccountId = '${acct.id}'` })) if (w.workflowId.startsWith('shipment/')) listed++;
    expect(listed).toBe(ids.length);
  }, 180_000);

  it('loses no purchase when a history and then a matching process is killed and restarted mid-purchase', async () => {
    const acct = await account();
    for (const service of ['history', 'matching'] as const) {
      const marker = `kill-${service}-${randomUUID()}`;
      await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 2000, times: -1, match: marker });
      const ids = await Promise.all([0, 1, 0].map((i) => buy(i, acct.liveKey, address({ name: marker }))));
      const proc = fleet.temporal(service);
      await proc.stop(0, 'SIGKILL');
      await sim.clearFaults(marker);
      await proc.start();
      for (const id of ids) {
        await until(1, acct.liveKey, id, 'purchased', 180_000);
        expect(await sim.purchases(id), `one label for ${id}`).toHaveLength(1);
      }
    }
    const { checkLedger } = await import('../../db/index.js');
    const ledger = await checkLedger(database.db, acct.id);
    expect(ledger.account.balance).toBe(ledger.entriesBalance);
    expect(ledger.account.pending).toBe(0);
  }, 600_000);

  it('replaces a worker process by another without losing a purchase', async () => {
    const acct = await account();
    const marker = `replace-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 1500, times: -1, match: marker });
    const ids = await Promise.all([0, 1, 0, 1].map((i) => buy(i, acct.liveKey, address({ name: marker }))));
    // The replacement comes up first, then both old shipments workers drain and exit.
    await fleet.startWorker('worker-shipments-3', ['shipments'], fleet.build);
    for (const name of ['worker-shipments-1', 'worker-shipments-2']) {
      const p = fleet.processes.get(name)!;
      await p.stop(30_000);
      expect(p.running()).toBe(false);
    }
    await sim.clearFaults(marker);
    for (const id of ids) {
      await until(0, acct.liveKey, id, 'purchased', 120_000);
      expect(await sim.purchases(id)).toHaveLength(1);
    }
  }, 300_000);

  it('deploys a new worker build with Worker Versioning: tracking shipments upgrade at a patched() step, new ones start on it', async () => {
    const acct = await account();
    const buildA = fleet.build;
    // Shipments bought and tracking on build A, one scan each already applied by A.
    const old = await Promise.all([0, 1, 0].map((i) => buy(i, acct.liveKey)));
    const oldBodies = await Promise.all(old.map((id) => until(0, acct.liveKey, id, 'purchased')));
    for (const s of oldBodies) await sim.scan(s.tracking.number, 'in_transit', 'collected on A');
    for (const s of oldBodies) await until(1, acct.liveKey, s.id, 'in_transit');
    for (const id of old) {
      const d = await client.workflow.getHandle(shipmentWorkflowId(id)).describe();
      expect(d.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId).toBe(buildA.buildId);
      expect(d.memo?.scansSeen).toBeUndefined();
    }

    // The deploy, as the operator's guide's procedure (docs/operators-guide.md): B's workers up beside A's, B made current, A's drained.
    const buildB: WorkerBuild = await buildWorkflowBundle(
      path.join(dataDir, 'bundles'),
      writeBuildB(),
    );
    expect(buildB.buildId).not.toBe(buildA.buildId);
    await Promise.all(workerLayout().map((w) => fleet.startWorker(w.name.replace(/^worker-/, 'worker-b-'), w.groups, buildB)));
    await fleet.setCurrentBuild(buildB.buildId);
    const olds = [...fleet.processes.values()].filter((p) => /^worker-(?!b-)/.test(p.name) && p.running());
    await Promise.all(olds.map((p) => p.stop(30_000)));

    // New purchases land on B.
    const fresh = await buy(1, acct.liveKey);
    const freshBody = await until(1, acct.liveKey, fresh, 'purchased');
    const freshDesc = await client.workflow.getHandle(shipmentWorkflowId(fresh)).describe();
    expect(freshDesc.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId).toBe(buildB.buildId);

    // The old shipments go on tracking on B to delivered, taking B's new step from then on.
    for (const s of [...oldBodies, freshBody]) await sim.scan(s.tracking.number, 'delivered', 'delivered');
    for (const id of [...old, fresh]) await until(0, acct.liveKey, id, 'delivered', 120_000);
    for (const id of [...old, fresh]) {
      const handle = client.workflow.getHandle(shipmentWorkflowId(id));
      // The read model says delivered a moment before the workflow has emitted its last event and ended.
      expect(await handle.result()).toEqual({ status: 'delivered' });
      const d = await handle.describe();
      expect(d.status.name).toBe('COMPLETED');
      expect(d.raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId).toBe(buildB.buildId);
      expect(d.memo?.trackedStatus, id).toBe('delivered');
      expect(await workflowTaskFailures(id), id).toEqual([]);
    }
    // An old history shows both builds: its first tasks completed by A, its last ones by B.
    const events = (await client.workflow.getHandle(shipmentWorkflowId(old[0])).fetchHistory()).events ?? [];
    const builds = events
      .map((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId)
      .filter((b): b is string => Boolean(b));
    expect(builds[0]).toBe(buildA.buildId);
    expect(builds.at(-1)).toBe(buildB.buildId);
    const t = await call(api(1), 'GET', `/api/v1/tracking/${oldBodies[0].tracking.number}`, { key: acct.liveKey });
    expect(t.body.events.map((e: any) => e.description)).toEqual(['collected on A', 'delivered']);
  }, 600_000);
});
