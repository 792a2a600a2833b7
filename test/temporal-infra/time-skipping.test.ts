// The time-skipping test server: days of workflow time in seconds of wall time.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tcpConnects } from '../../tools/temporal/process-utils.js';
import { alive, expectServerDiesWithParent, hostPort } from './orphans.js';
import { createTimeSkippingEnv } from './time-skipping-env.js';
import { phaseQuery, sleepy } from './workflows.js';

const workflowsPath = fileURLToPath(new URL('./workflows.ts', import.meta.url));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('time-skipping test server', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  const taskQueue = `time-skipping-${randomUUID()}`;
  let running: Promise<void>;

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath });
    running = worker.run();
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  it('runs a workflow that sleeps 2 hours then 3 days in seconds', async () => {
    const wallStart = Date.now();
    const serverStart = await env.currentTimeMs();
    const result = await env.client.workflow.execute(sleepy, { taskQueue, workflowId: `sleepy-${randomUUID()}` });
    const wall = Date.now() - wallStart;

    expect(result.afterTwoHours - result.startedAt).toBeGreaterThanOrEqual(2 * HOUR);
    expect(result.afterTwoHours - result.startedAt).toBeLessThan(2 * HOUR + 60_000);
    expect(result.finishedAt - result.afterTwoHours).toBeGreaterThanOrEqual(3 * DAY);
    expect(result.finishedAt - result.afterTwoHours).toBeLessThan(3 * DAY + 60_000);
    expect((await env.currentTimeMs()) - serverStart).toBeGreaterThanOrEqual(2 * HOUR + 3 * DAY);
    expect(wall).toBeLessThan(30_000);
  });

  it('env.sleep moves the clock and fires the workflow timers it passes', async () => {
    const handle = await env.client.workflow.start(sleepy, { taskQueue, workflowId: `sleepy-${randomUUID()}` });
    await expect.poll(() => handle.query(phaseQuery), { timeout: 10_000 }).toBe('sleeping 2h');

    const before = await env.currentTimeMs();
    const wallStart = Date.now();
    await env.sleep('2h');
    const after = await env.currentTimeMs();
    expect(after - before).toBeGreaterThanOrEqual(2 * HOUR);
    expect(after - before).toBeLessThan(2 * HOUR + 60_000);
    expect(Date.now() - wallStart).toBeLessThan(10_000);
    // The 2 h timer has fired; the 3 day one has not.
    await expect.poll(() => handle.query(phaseQuery), { timeout: 10_000 }).toBe('sleeping 3d');

    const result = await handle.result();
    expect(result.finishedAt - result.startedAt).toBeGreaterThanOrEqual(2 * HOUR + 3 * DAY);
  });
});

describe('test server isolation', () => {
  it('gives each environment a server of its own: skipping time in one leaves the other alone', async () => {
    const [a, b] = await Promise.all([createTimeSkippingEnv(), createTimeSkippingEnv()]);
    try {
      const [a0, b0] = [await a.currentTimeMs(), await b.currentTimeMs()];
      await a.sleep('1d');
      const [a1, b1] = [await a.currentTimeMs(), await b.currentTimeMs()];
      expect(a1 - a0).toBeGreaterThanOrEqual(DAY);
      expect(b1 - b0).toBeLessThan(HOUR);
    } finally {
      await Promise.all([a.teardown(), b.teardown()]);
    }
  });

  it('teardown kills the environment\'s server: the port no longer answers', async () => {
    const env = await createTimeSkippingEnv();
    const [host, port] = hostPort(env.address);
    expect(await tcpConnects(host, port)).toBe(true);
    await env.teardown();
    await expect.poll(() => tcpConnects(host, port), { timeout: 10_000 }).toBe(false);
  });

  it('a test server does not outlive the process that started it, even one killed by SIGKILL', async () => {
    await expectServerDiesWithParent('test/temporal-infra/fixtures/test-server-child.ts');
  });
});
