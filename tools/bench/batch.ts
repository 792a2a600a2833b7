/**
 * `npm run bench -- batch [--items 1000] [--singles 1000] [--clients 8]`: one batch of `--items`
 * live wallet purchases (POST /batches, timed from the request to `completed`) against `--singles`
 * single purchases (POST /shipments, each until its 201, at `--clients` closed-loop clients), in the
 * same run on the same stack, with the carriers' rate limits lifted so that it measures us and not
 * the simulated carriers' limits. Items and single purchases alternate acme_ground and
 * swiftpost_standard. It starts its own PostgreSQL, Temporal dev server, simulator, API and workers
 * on free ports (nothing else need run, and a running `npm start` is not disturbed). Prints the wall
 * time and purchases per second of each, their ratio and the machine, as a table and as JSON.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ALL_CARRIER_MODULES } from '../../carriers/index.js';
import { address, call, createAccount, parcel, startInfra, startLocalStack, type LocalStack } from '../stack/index.js';
import { closedLoop } from './load.js';
import { parseScenarioFlags } from './options.js';
import { describeMachine, machine } from './report.js';
import { summarize } from './stats.js';

const log = (line: string) => void process.stderr.write(`bench batch: ${line}\n`);
const SERVICES = ['acme_ground', 'swiftpost_standard'];
/** Far above anything this machine reaches: the carriers' own limits (20/s for Acme) are not measured. */
const LIFTED_RPS = 1000;
/** Each carrier of the services bought, its limit lifted (the registry knows whose service is whose). */
const LIFTED = Object.fromEntries(
  ALL_CARRIER_MODULES.filter((m) => m.definition.services.some((s) => SERVICES.includes(s.code))).map((m) => [m.definition.code, LIFTED_RPS]),
);

const order = (i: number, run: string) => ({
  service: SERVICES[i % SERVICES.length],
  from: address(),
  to: address({ name: `Bench ${i}`, city: 'Leeds', postcode: 'LS1 4AP' }),
  parcel: parcel(),
  reference: `bench-${run}-${i}`,
});

interface Measure {
  purchases: number;
  failed: number;
  wall_ms: number;
  purchases_per_second: number;
}
const perSecond = (n: number, ms: number) => Math.round((n / Math.max(ms, 1)) * 1000 * 10) / 10;

async function batchRun(stack: LocalStack, key: string, items: number, run: string): Promise<Measure & { batch_id: string }> {
  const body = { shipments: Array.from({ length: items }, (_, i) => order(i, `${run}-b`)) };
  const started = performance.now();
  const a = await call(stack, 'POST', '/api/v1/batches', { key, body });
  if (a.status !== 202) throw new Error(`POST /batches answered ${a.status}: ${a.text.slice(0, 300)}`);
  const id = a.body.id as string;
  let last = -1;
  for (;;) {
    const b = await call(stack, 'GET', `/api/v1/batches/${id}`, { key });
    if (b.status !== 200) throw new Error(`GET /batches/${id} answered ${b.status}`);
    if (b.body.status === 'completed') {
      const wall = performance.now() - started;
      return { batch_id: id, purchases: b.body.counts.purchased, failed: b.body.counts.failed, wall_ms: Math.round(wall), purchases_per_second: perSecond(b.body.counts.purchased, wall) };
    }
    const done = b.body.counts.purchased + b.body.counts.failed;
    if (done >= last + 100) {
      log(`batch ${id}: ${done} of ${items} ended after ${Math.round((performance.now() - started) / 1000)} s`);
      last = done;
    }
    await sleep(250);
  }
}

async function singlesRun(stack: LocalStack, key: string, count: number, clients: number, run: string) {
  let failed = 0;
  const load = await closedLoop({ concurrency: clients, requests: count, timeMs: 60 * 60_000 }, async (i) => {
    const a = await call(stack, 'POST', '/api/v1/shipments', { key, body: order(i, `${run}-s`), headers: { 'idempotency-key': `${run}-s-${i}` } });
    let status = a.body?.status;
    // A 202 is still a purchase under way: wait for it, as a client would, so both sides count ended purchases.
    while (a.status === 202 && status === 'pending') {
      await sleep(200);
      status = (await call(stack, 'GET', `/api/v1/shipments/${a.body.id}`, { key })).body?.status;
    }
    if (status !== 'purchased') failed++;
    return a.status;
  });
  const ok = load.requests - failed;
  return {
    measure: { purchases: ok, failed, wall_ms: Math.round(load.wallMs), purchases_per_second: perSecond(ok, load.wallMs) },
    latency_ms: summarize(load.latencies),
    statuses: Object.fromEntries(load.outcomes),
  };
}

export async function main(argv: string[]): Promise<number> {
  const usage = 'usage: npm run bench -- batch [--items <n, at most 1000>] [--singles <n>] [--clients <n>]\n';
  const flags = parseScenarioFlags(argv, { items: '1000', singles: '1000', clients: '8' }, usage);
  if ('exit' in flags) return flags.exit;
  const o = { items: Number(flags.values.items), singles: Number(flags.values.singles), clients: Number(flags.values.clients) };
  if (![o.items, o.singles, o.clients].every((n) => Number.isInteger(n) && n > 0) || o.items > 1000) {
    process.stderr.write(usage);
    return 2;
  }
  const infra = await startInfra(log);
  try {
    const stack = await startLocalStack(
      infra,
      {
        carrierRateLimits: LIFTED,
        // Single purchases answer when bought, not with a 202 after a wait, unless something is wrong.
        purchaseWaitMs: 120_000,
        purchaseDeadlineMs: 600_000,
        carrierTimeoutMs: 10_000,
      },
    );
    try {
      const acct = await createAccount(stack, { topUp: '10000000.00' });
      // The same account and key limits for both; the key's rate limit is out of the way.
      const key = (await stack.admin.createKey(acct.id, { mode: 'live', scopes: 'all', rateLimit: '1000000/1' })).key;
      const run = randomUUID().slice(0, 8);
      log(`warming up: 50 single purchases and a batch of 50`);
      await singlesRun(stack, key, 50, o.clients, `${run}-warm`);
      await batchRun(stack, key, 50, `${run}-warm`);

      log(`a batch of ${o.items}`);
      const batch = await batchRun(stack, key, o.items, run);
      log(`batch: ${batch.purchases} purchased in ${(batch.wall_ms / 1000).toFixed(1)} s, ${batch.purchases_per_second}/s`);
      log(`${o.singles} single purchases at ${o.clients} clients`);
      const singles = await singlesRun(stack, key, o.singles, o.clients, run);
      log(`singles: ${singles.measure.purchases} purchased in ${(singles.measure.wall_ms / 1000).toFixed(1)} s, ${singles.measure.purchases_per_second}/s`);

      const ratio = Math.round((batch.purchases_per_second / Math.max(singles.measure.purchases_per_second, 0.1)) * 100) / 100;
      const m = machine();
      const cell = (v: string | number, w: number) => String(v).padStart(w);
      const row = (name: string, x: Measure) =>
        `${name.padEnd(34)}${cell(x.purchases, 10)}${cell(x.failed, 8)}${cell((x.wall_ms / 1000).toFixed(1), 10)}${cell(x.purchases_per_second, 14)}`;
      const report = {
        scenario: 'batch',
        options: o,
        services: SERVICES,
        carrier_rps: LIFTED,
        machine: m,
        batch,
        singles: { clients: o.clients, ...singles.measure, latency_ms: singles.latency_ms, statuses: singles.statuses },
        batch_to_singles_throughput: ratio,
      };
      process.stdout.write(
        [
          `live wallet purchases of ${SERVICES.join(' and ')} (carrier rate limits lifted to ${LIFTED_RPS}/s)`,
          describeMachine(m),
          `${'run'.padEnd(34)}${cell('purchased', 10)}${cell('failed', 8)}${cell('wall s', 10)}${cell('purchases/s', 14)}`,
          row(`one batch of ${o.items}`, batch),
          row(`${o.singles} single, ${o.clients} clients`, singles.measure),
          `batch ÷ single purchases per second: ${ratio}`,
          '',
          JSON.stringify(report, null, 2),
          '',
        ].join('\n'),
      );
      return batch.failed || singles.measure.failed ? 1 : 0;
    } finally {
      await stack.stop();
    }
  } finally {
    await infra.stop();
  }
}
