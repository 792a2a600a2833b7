// The Temporal CLI's dev server as the tests and the local stack run it (tools/temporal/dev-server.ts).
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTemporalCli } from '../../tools/temporal/cli.js';
import { startDevServer, type DevServer } from '../../tools/temporal/dev-server.js';
import { run, tcpConnects } from '../../tools/temporal/process-utils.js';
import { alive, expectServerDiesWithParent, hostPort, repoRoot } from './orphans.js';
import { quick } from './workflows.js';
import { freePorts } from '../../util/index.js';
import { BATCH_PRIORITY } from '../../contract/index.js';

const workflowsPath = fileURLToPath(new URL('./workflows.ts', import.meta.url));
const namespace = 'infra-test';
const ShipmentStatus = defineSearchAttributeKey('ShipmentStatus', SearchAttributeType.KEYWORD);
const Livemode = defineSearchAttributeKey('Livemode', SearchAttributeType.BOOL);
const searchAttributes = { ShipmentStatus: 'Keyword', Livemode: 'Bool', AttemptCount: 'Int' } as const;

describe('Temporal dev server', () => {
  let dataDir: string;
  let server: DevServer | undefined;
  const workflowId = `quick-${randomUUID()}`;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'parcel-devserver-'));
    // One partition a queue: the priority test reads the exact order, which holds within a partition
    // (tools/temporal/tuning.ts); over the default four it is close, not exact.
    const onePartition = { 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 };
    server = await startDevServer({ dataDir, port: 0, namespace, searchAttributes, dynamicConfig: onePartition, log: () => undefined });
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('listens on a free port and registers the search attributes in the namespace', async () => {
    const s = server as DevServer;
    expect(hostPort(s.address)[1]).toBeGreaterThan(0);
    const connection = await Connection.connect({ address: s.address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(Object.keys(searchAttributes)));
      const described = await connection.workflowService.describeNamespace({ namespace });
      expect(described.namespaceInfo?.name).toBe(namespace);
    } finally {
      await connection.close();
    }
  });

  it('binds four ports of our choosing, all distinct: the CLI picks none of its own (it once picked the frontend\'s)', async () => {
    const s = server as DevServer;
    const command = (await readFile(s.logFile, 'utf8')).split('\n').filter((line) => line.startsWith('=== ')).at(-1) ?? '';
    const portOf = (flag: string) => Number(command.match(new RegExp(`${flag} (\\d+)`))?.[1]);
    const ports = ['--port', '--ui-port', '--http-port', '--metrics-port'].map(portOf);
    expect(ports.every((p) => p > 0), command).toBe(true);
    expect(new Set(ports).size).toBe(4);
    expect(await tcpConnects('127.0.0.1', portOf('--http-port'))).toBe(true);
  });

  it('runs a workflow that carries search attributes, found by a visibility query', async () => {
    const s = server as DevServer;
    const taskQueue = `dev-server-${randomUUID()}`;
    const nativeConnection = await NativeConnection.connect({ address: s.address });
    const connection = await Connection.connect({ address: s.address });
    try {
      const worker = await Worker.create({ connection: nativeConnection, namespace, taskQueue, workflowsPath });
      const client = new Client({ connection, namespace });
      const handle = await worker.runUntil(async () => {
        const h = await client.workflow.start(quick, {
          taskQueue,
          workflowId,
          args: ['parcel'],
          typedSearchAttributes: [
            { key: ShipmentStatus, value: 'purchased' },
            { key: Livemode, value: false },
          ],
        });
        expect(await h.result()).toBe('hello parcel');
        return h;
      });
      const description = await handle.describe();
      expect(description.typedSearchAttributes.get(ShipmentStatus)).toBe('purchased');
      expect(description.typedSearchAttributes.get(Livemode)).toBe(false);
      await expect
        .poll(
          async () => {
            const ids: string[] = [];
            for await (const wf of client.workflow.list({ query: `ShipmentStatus = "purchased" AND Livemode = false` })) ids.push(wf.workflowId);
            return ids;
          },
          { timeout: 15_000 },
        )
        .toContain(workflowId);
    } finally {
      await connection.close();
      await nativeConnection.close();
    }
  });

  it('serves waiting tasks in priority order (the priority matcher is on): a single purchase ahead of batch items queued before it', async () => {
    const s = server as DevServer;
    const taskQueue = `priority-${randomUUID()}`;
    const nativeConnection = await NativeConnection.connect({ address: s.address });
    const connection = await Connection.connect({ address: s.address });
    try {
      const client = new Client({ connection, namespace });
      // No worker polls yet: every task waits in line, the batch's items first.
      const items = [];
      for (let i = 0; i < 6; i++) items.push(await client.workflow.start(quick, { taskQueue, workflowId: `item-${i}-${randomUUID()}`, args: [`item ${i}`], priority: BATCH_PRIORITY }));
      const single = await client.workflow.start(quick, { taskQueue, workflowId: `single-${randomUUID()}`, args: ['single'] });
      // One task at a time, so the order they are served in is the order they close in.
      const worker = await Worker.create({
        connection: nativeConnection,
        namespace,
        taskQueue,
        workflowsPath,
        maxCachedWorkflows: 0,
        maxConcurrentWorkflowTaskExecutions: 1,
        maxConcurrentWorkflowTaskPolls: 1,
      });
      await worker.runUntil(Promise.all([single, ...items].map((h) => h.result())));
      const closed = await Promise.all([single, ...items].map(async (h) => ({ id: h.workflowId, at: (await h.describe()).closeTime!.getTime() })));
      expect(closed.sort((a, b) => a.at - b.at)[0].id).toBe(single.workflowId);
    } finally {
      await connection.close();
      await nativeConnection.close();
    }
  });

  it('serves the web UI', async () => {
    const res = await fetch((server as DevServer).uiUrl);
    expect(res.status).toBe(200);
  });

  it('refuses a port that is already taken, saying so', async () => {
    const port = hostPort((server as DevServer).address)[1];
    await expect(
      startDevServer({ dataDir: path.join(dataDir, 'other'), port, searchAttributes: {}, log: () => undefined }),
    ).rejects.toThrow(/already in use/);
  });

  it('starts again on other ports when a port it picked as free is taken before the server binds it', async () => {
    // A port picked as free can be handed to another process (as the local port of a connection)
    // before the server binds it: held here, and handed out as the HTTP API's port the first time.
    const held = net.createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const heldPort = (held.address() as net.AddressInfo).port;
    const lines: string[] = [];
    let calls = 0;
    let other: DevServer | undefined;
    try {
      other = await startDevServer({
        dataDir: path.join(dataDir, 'retry'),
        port: 0,
        searchAttributes: {},
        log: (msg) => lines.push(msg),
        pickPorts: async (count, host, exclude) => {
          const ports = await freePorts(count, host, [...exclude, heldPort]);
          // The first time as the HTTP API's port (the server finds it taken), the second as the
          // frontend's (found taken before the server starts).
          if (calls === 0) ports[count - 2] = heldPort;
          if (calls === 1) ports[0] = heldPort;
          calls++;
          return ports;
        },
      });
      expect(calls).toBe(3);
      expect(lines.filter((l) => l.includes(`port ${heldPort} was taken before the Temporal dev server bound it`))).toHaveLength(2);
      const connection = await Connection.connect({ address: other.address });
      await connection.workflowService.describeNamespace({ namespace: 'default' });
      await connection.close();
    } finally {
      await other?.stop();
      await new Promise((resolve) => held.close(resolve));
    }
  });

  it('stop() ends the process and frees the port; a restart on the same data keeps the history', async () => {
    const s = server as DevServer;
    await s.stop();
    server = undefined;
    expect(alive(s.pid)).toBe(false);
    const [host, port] = hostPort(s.address);
    expect(await tcpConnects(host, port)).toBe(false);
    await s.stop(); // a second stop is harmless

    server = await startDevServer({ dataDir, port: 0, namespace, searchAttributes, log: () => undefined });
    const connection = await Connection.connect({ address: server.address });
    try {
      const client = new Client({ connection, namespace });
      const description = await client.workflow.getHandle(workflowId).describe();
      expect(description.status.name).toBe('COMPLETED');
      expect(description.typedSearchAttributes.get(ShipmentStatus)).toBe('purchased');
    } finally {
      await connection.close();
    }
  });
});

describe('Temporal CLI', () => {
  it('tools/temporal/ensure-cli.ts prints the path of a working CLI', async () => {
    const res = await run(process.execPath, ['--import', 'tsx', 'tools/temporal/ensure-cli.ts'], { cwd: repoRoot, timeoutMs: 120_000 });
    expect(res.code).toBe(0);
    const cli = res.stdout.trim();
    expect(cli).toBe(await ensureTemporalCli(() => undefined));
    const version = await run(cli, ['--version']);
    expect(version.stdout).toMatch(/^temporal version /);
  });

  it('a dev server does not outlive the process that started it, even one killed by SIGKILL', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'parcel-devserver-orphan-'));
    try {
      await expectServerDiesWithParent('test/temporal-infra/fixtures/dev-server-child.ts', [dataDir]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
