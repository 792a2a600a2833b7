import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { request } from 'undici';
import { freePort } from '../../util/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestStack } from '../support/stack.js';

// The production entry points as real processes (npm run api / npm run worker), signalled as an
// orchestrator would signal them.
const prefix = `p${randomBytes(4).toString('hex')}-`;
let sim: ReturnType<typeof simControl>;
const children: ChildProcess[] = [];


function env(extra: Record<string, string>) {
  return {
    ...process.env,
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    CARRIER_SIM_PORT: new URL(inject('carrierSimUrl')).port,
    WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
    TASK_QUEUE_PREFIX: prefix,
    LOG_LEVEL: process.env.CHILD_LOG_LEVEL ?? 'warn',
    ...extra,
  };
}

function start(
  entry: string,
  args: string[],
  extra: Record<string, string>,
  o: { capture?: string[] } = {},
): { child: ChildProcess; exited: Promise<number | null> } {
  const output = o.capture ? 'pipe' : process.env.CHILD_LOG_LEVEL ? 'inherit' : 'ignore';
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { env: env(extra), stdio: ['ignore', output, o.capture ? 'pipe' : 'inherit'] });
  if (o.capture) {
    const lines = o.capture;
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n');
        rest = parts.pop() ?? '';
        lines.push(...parts.filter((l) => l.trim()));
      });
    }
  }
  children.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited };
}

/** A live Acme purchase whose recipient's name is `marker`, so that a simulator fault matched by it applies. */
function buyMarked(stack: { url: string }, key: string, marker: string) {
  return call(stack, 'POST', '/api/v1/shipments', { key, body: { service: 'acme_ground', from: address(), to: address({ name: marker }), parcel: parcel() } });
}

async function waitForHttp(url: string) {
  await eventually(async () => {
    try {
      const res = await request(url);
      await res.body.dump();
      return res.statusCode < 500 ? true : undefined;
    } catch {
      return undefined;
    }
  }, 60_000, url);
}

let api: TestStack;
beforeAll(async () => {
  sim = simControl(inject('carrierSimUrl'));
  // An in-process API on this file's queues, without workers of its own.
  api = await startTestStack({ taskQueuePrefix: prefix, purchaseWaitMs: 500 }, { workers: false });
});
afterAll(async () => {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    c.kill('SIGKILL');
    // A detached child (npm run …) leads a process group of its own: tsx and node with it.
    if (c.spawnargs[0] === 'npm') {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  await api?.stop();
});

describe('worker and API processes', () => {
  it('drains a worker on SIGTERM in the middle of purchases: none lost, none doubled, once a worker is back', async () => {
    const metricsPort = await freePort();
    const first = start('workers/main.ts', ['shipments', 'carriers'], {
      WORKER_SHUTDOWN_GRACE_MS: '15000',
      WORKER_METRICS_PORT: String(metricsPort),
    });
    await waitForHttp(`http://127.0.0.1:${metricsPort}/metrics`);
    const acct = await createAccount(api, { topUp: '100.00' });
    const marker = `sigterm-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 1500, times: -1, match: marker });
    const answers = await Promise.all(Array.from({ length: 5 }, () => buyMarked(api, acct.liveKey, marker)));
    for (const a of answers) expect(a.status, a.text).toBe(202);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    await sim.clearFaults(marker);

    const second = start('workers/main.ts', ['all'], { WORKER_METRICS_PORT: String(metricsPort) });
    for (const a of answers) {
      const done = await eventually(async () => {
        const s = await call(api, 'GET', `/api/v1/shipments/${a.body.id}`, { key: acct.liveKey });
        return s.body.status === 'purchased' ? s.body : undefined;
      }, 60_000, `purchase ${a.body.id}`);
      const labels = await sim.purchases(done.id);
      expect(labels).toHaveLength(1);
    }
    const account = await expectLedgerConsistent(api, acct.id);
    expect(account.pending).toBe(0);

    // The worker's metrics: the Temporal runtime's own and ours. The carrier calls above may all have
    // finished in the draining worker, so one more purchase runs wholly in this one.
    const after = await call(api, 'POST', '/api/v1/shipments', {
      key: acct.liveKey,
      body: { service: 'acme_ground', from: address(), to: address(), parcel: parcel() },
    });
    expect([201, 202], after.text).toContain(after.status);
    await eventually(async () => {
      const s = await call(api, 'GET', `/api/v1/shipments/${after.body.id}`, { key: acct.liveKey });
      return s.body.status === 'purchased' ? s.body : undefined;
    }, 60_000, `purchase ${after.body.id}`);
    const text = await (await request(`http://127.0.0.1:${metricsPort}/metrics`)).body.text();
    expect(text).toMatch(/^shipping_purchases_total\{outcome="purchased",livemode="true"\} [1-9]/m);
    expect(text).toMatch(/^shipping_carrier_call_duration_seconds_count\{carrier="acme",operation="buy",result="ok"\} [1-9]/m);
    // The ledger's holds outstanding: the fleet's figure, from the database (none left here).
    expect(text).toMatch(/^shipping_ledger_held_funds\{currency="GBP"\} \d/m);
    expect(text).toContain('# TYPE shipping_webhook_attempts_total counter');
    expect(text).toMatch(/^temporal_\w+/m);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it("writes every log line as JSON at LOG_LEVEL, the SDK's and the workflows' too, with the workflow's id", async () => {
    const lines: string[] = [];
    const worker = start('workers/main.ts', ['all'], { LOG_LEVEL: 'info', WORKER_METRICS_PORT: String(await freePort()) }, { capture: lines });
    await eventually(async () => (lines.some((l) => l.includes('workers started')) ? true : undefined), 60_000, 'workers started');
    const acct = await createAccount(api, { topUp: '100.00' });
    const marker = `refused-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'error', status: 422, match: marker });
    const refused = await buyMarked(api, acct.liveKey, marker);
    // The API here waits 500 ms: the refusal comes back as its error, or as a shipment that fails.
    const failed = await eventually(async () => {
      const id = refused.body.shipment_id ?? refused.body.id;
      const s = await call(api, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey });
      return s.body.status === 'failed' ? s.body : undefined;
    }, 60_000, 'the refused purchase fails');
    const compensating = await eventually(
      async () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'purchase failed; compensating' && String(l.workflowId).includes(failed.id)),
      30_000,
      "the workflow's log line",
    );
    expect(compensating).toMatchObject({ level: 40, name: 'worker', code: 'carrier_error', workflowType: expect.any(String), runId: expect.any(String) });
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    await sim.clearFaults(marker);
    // Every line is one JSON object (a log pipeline reads each), the SDK's own included.
    const parsed = lines.map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new Error(`a log line is not JSON: ${l}`);
      }
    });
    expect(parsed.some((l) => l.sdkComponent === 'worker' && l.msg === 'Worker state changed')).toBe(true);
    // The carrier queues poll no workflows by design: said at debug, not as a warning at start.
    expect(parsed.filter((l) => String(l.msg).startsWith('No workflows registered'))).toEqual([]);
  });

  it('drains through the npm entry points too: SIGTERM to the process group of `npm run api` and `npm run worker`', async () => {
    // An orchestrator signals the whole group (npm, tsx and node). tsx used to SIGKILL its child
    // 60 ms after relaying the signal, as the child had dropped the handler tsx listens through.
    const apiLines: string[] = [];
    const workerLines: string[] = [];
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const apiProc = spawn('npm', ['run', '--silent', 'api'], { env: env({ PORT: String(port), HOST: '127.0.0.1', PURCHASE_WAIT_MS: '10000', LOG_LEVEL: 'info' }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const workerProc = spawn('npm', ['run', '--silent', 'worker', '--', 'shipments', 'carriers'], { env: env({ LOG_LEVEL: 'info', WORKER_SHUTDOWN_GRACE_MS: '15000' }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    for (const [proc, lines] of [[apiProc, apiLines], [workerProc, workerLines]] as const) {
      children.push(proc);
      for (const stream of [proc.stdout, proc.stderr]) stream.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
    }
    await waitForHttp(`${base}/healthz`);
    await eventually(async () => (workerLines.some((l) => l.includes('workers started')) ? true : undefined), 60_000, 'workers started');
    const acct = await createAccount(api, { topUp: '100.00' });
    const marker = `npm-sigterm-${randomUUID()}`;
    await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 2500, times: -1, match: marker });
    const inFlight = Array.from({ length: 3 }, () => buyMarked({ url: base }, acct.liveKey, marker));
    await new Promise((r) => setTimeout(r, 1000));
    // The API drains: it answers each request under way before it exits.
    process.kill(-apiProc.pid!, 'SIGTERM');
    const answers = await Promise.all(inFlight);
    for (const a of answers) expect(a.status, a.text).toBe(201);
    // npm itself may exit first: the API's own last line says it stopped by itself.
    await eventually(async () => (apiLines.some((l) => l.includes('"msg":"stopped"')) ? true : undefined), 30_000, 'the API stopped');
    await expect(request(`${base}/healthz`)).rejects.toThrow();
    // The worker drains: the carrier call under way finishes in it, then it stops by itself.
    const late = await buyMarked(api, acct.liveKey, marker);
    expect(late.status, late.text).toBe(202);
    await new Promise((r) => setTimeout(r, 1000));
    process.kill(-workerProc.pid!, 'SIGTERM');
    await eventually(async () => (workerLines.some((l) => l.includes('"msg":"workers stopped"')) ? true : undefined), 30_000, 'the worker stopped');
    expect(await sim.purchases(late.body.id)).toHaveLength(1);
    await sim.clearFaults(marker);
    // A worker back finishes the purchase the drained one had bought.
    const back = start('workers/main.ts', ['shipments', 'carriers'], {});
    await eventually(async () => {
      const s = await call(api, 'GET', `/api/v1/shipments/${late.body.id}`, { key: acct.liveKey });
      return s.body.status === 'purchased' ? true : undefined;
    }, 60_000, 'the drained purchase, finished');
    expect(await sim.purchases(late.body.id)).toHaveLength(1);
    back.child.kill('SIGTERM');
    expect(await back.exited).toBe(0);
    await expectLedgerConsistent(api, acct.id);
  }, 180_000);

  it('answers every in-flight request before the API process exits on SIGTERM, and serves its metrics', async () => {
    const workers = await startTestStack({ taskQueuePrefix: prefix }, {});
    try {
      const port = await freePort();
      const proc = start('api/main.ts', [], { PORT: String(port), HOST: '127.0.0.1', PURCHASE_WAIT_MS: '10000' });
      const base = `http://127.0.0.1:${port}`;
      await waitForHttp(`${base}/healthz`);
      const acct = await createAccount(api, { topUp: '100.00' });
      const marker = `api-sigterm-${randomUUID()}`;
      await sim.fault({ carrier: 'acme', operation: 'buy', mode: 'slow', delay_ms: 2500, times: -1, match: marker });
      const inFlight = Array.from({ length: 4 }, () => buyMarked({ url: base }, acct.liveKey, marker));
      // The fleet's figures, once: funds held by the four purchases in flight and their count, as
      // soon as the holds are made (a fixed wait was too short on a loaded machine).
      const fleet = await eventually(async () => {
        const text = await (await request(`${base}/metrics/fleet`)).body.text();
        return /^shipping_ledger_held_funds\{currency="GBP"\} [1-9]/m.test(text) ? text : undefined;
      }, 10_000, 'funds held by the purchases in flight');
      const metrics = await (await request(`${base}/metrics`)).body.text();
      expect(metrics).toMatch(/^http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/m);
      expect(metrics).toContain('# TYPE http_request_duration_seconds histogram');
      expect(metrics).toMatch(/^http_response_size_bytes_count\{method="GET",route="\/healthz",status="200"\} [1-9]/m);
      expect(fleet).toMatch(/^shipping_ledger_held_funds\{currency="GBP"\} [1-9]/m);
      expect(fleet).toMatch(/^shipping_purchases_pending\{livemode="true"\} [1-9]/m);
      proc.child.kill('SIGTERM');
      const answers = await Promise.all(inFlight);
      for (const a of answers) expect(a.status, a.text).toBe(201);
      expect(await proc.exited).toBe(0);
      await expect(request(`${base}/healthz`)).rejects.toThrow();
      await sim.clearFaults(marker);
      await expectLedgerConsistent(api, acct.id);
    } finally {
      await workers.stop();
    }
  });
});
