/**
 * `npm run bench -- rate-split [--tracked 10] [--purchases 5] [--rps 2]`: purchase latency while a
 * carrier's tracking polls are backlogged, with the polls on the purchases' queue (one shared rate
 * limit: CARRIER_TRACKING_SHARE=0) and under their own share of the rate (the default: each poll
 * waits in its parcel's worker for its place in the share, held in PostgreSQL).
 * It starts its own PostgreSQL, Temporal dev server, simulator, API and workers (nothing else need
 * run), limits Acme to `--rps` requests a second for the whole fleet, buys `--tracked` live
 * shipments that then poll as fast as tracking lets them, and times `--purchases` purchases, one at
 * a time, from the request to the 201, and how long each one's carrier call waited in its task
 * queue (from the history: that part is the queue layout's, the rest is the machine's). Prints a
 * table and JSON.
 */
import { toDate } from '../../admin/index.js';
import { trackingRatePolicy } from '../../activities/index.js';
import { splitCarrierRate, taskQueues } from '../../contract/index.js';
import { admittedWithinWindow } from '../../db/index.js';
import { parseScenarioFlags } from './options.js';
import { randomUUID } from 'node:crypto';
import { address, call, createAccount, parcel, startInfra, startLocalStack, type LocalStack } from '../stack/index.js';
import { percentile } from './stats.js';

interface Layout {
  name: string;
  trackingSharePercent: number;
}
const LAYOUTS: Layout[] = [
  { name: 'one shared queue (before)', trackingSharePercent: 0 },
  { name: 'own tracking share (after)', trackingSharePercent: 25 },
];

const log = (line: string) => void process.stderr.write(`bench rate-split: ${line}\n`);
const order = () => ({ service: 'acme_ground', from: address(), to: address({ name: `bench-${randomUUID()}` }), parcel: parcel() });

const ms = (t: Parameters<typeof toDate>[0]) => toDate(t)?.getTime() ?? 0;

/** How long the purchase's carrier call sat in its task queue: its buy scheduled → started, from the history. */
async function buyQueueWait(stack: LocalStack, shipmentId: string): Promise<number> {
  const events = (await stack.temporal.workflow.getHandle(`shipment/${shipmentId}`).fetchHistory()).events ?? [];
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'buyLabel');
  const started = events.find((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled?.eventId));
  if (!scheduled || !started) throw new Error(`no buy in the history of ${shipmentId}`);
  return ms(started.eventTime) - ms(scheduled.eventTime);
}

/**
 * Whether the polls want more than their share: on the one shared queue, half the tracked
 * shipments have a poll queued; with a share of their own, its window is full (every place taken).
 */
async function backlogged(stack: LocalStack, workflowIds: string[], layout: Layout, rps: number): Promise<boolean> {
  if (layout.trackingSharePercent === 0) return (await queuedPolls(stack, workflowIds)) >= workflowIds.length / 2;
  const key = taskQueues(stack.config.taskQueuePrefix).carrierTracking('acme');
  return (await admittedWithinWindow(stack.database.db, key)).length >= trackingRatePolicy(splitCarrierRate(rps, layout.trackingSharePercent).tracking).count;
}

/** Polls of the tracked shipments that are queued and not yet taken by a worker (the shared queue's; a share's wait in their workers). */
async function queuedPolls(stack: LocalStack, workflowIds: string[]): Promise<number> {
  const described = await Promise.all(workflowIds.map((id) => stack.temporal.workflow.getHandle(id).describe()));
  // State 1 is SCHEDULED: in the task queue, no worker has it yet.
  return described.flatMap((d) => d.raw.pendingActivities ?? []).filter((p) => p.activityType?.name === 'fetchScans' && p.state === 1).length;
}

async function measure(infra: Awaited<ReturnType<typeof startInfra>>, layout: Layout, o: { tracked: number; purchases: number; rps: number }) {
  const stack = await startLocalStack(
    infra,
    {
      carrierRateLimits: { acme: o.rps },
      carrierTrackingSharePercent: layout.trackingSharePercent,
      trackingPollMinMs: 50,
      trackingPollMaxMs: 100,
      purchaseWaitMs: 300_000,
    },
  );
  try {
    const acct = await createAccount(stack, { topUp: '5000.00' });
    log(`${layout.name}: buying ${o.tracked} shipments to track`);
    const tracked: string[] = [];
    while (tracked.length < o.tracked) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(4, o.tracked - tracked.length) }, async () => {
          const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order() });
          if (a.status !== 201) throw new Error(`setup purchase answered ${a.status}: ${a.text}`);
          return `shipment/${a.body.id}`;
        }),
      );
      tracked.push(...batch);
    }
    for (const until = Date.now() + 120_000; !(await backlogged(stack, tracked, layout, o.rps)); ) {
      if (Date.now() > until) throw new Error('the tracking polls never backlogged');
      await new Promise((r) => setTimeout(r, 250));
    }
    const latencies: number[] = [];
    const waits: number[] = [];
    const backlog: number[] = [];
    for (let i = 0; i < o.purchases; i++) {
      backlog.push(await queuedPolls(stack, tracked));
      const started = performance.now();
      const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order() });
      latencies.push(performance.now() - started);
      if (a.status !== 201) throw new Error(`measured purchase answered ${a.status}: ${a.text}`);
      waits.push(await buyQueueWait(stack, a.body.id));
      log(`${layout.name}: purchase ${i + 1}/${o.purchases} in ${Math.round(latencies[i])} ms (its carrier call queued ${Math.round(waits[i])} ms) with ${backlog[i]} polls queued`);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const sortedWaits = [...waits].sort((a, b) => a - b);
    return {
      layout: layout.name,
      tracking_share_percent: layout.trackingSharePercent,
      queued_polls_mean: Math.round((backlog.reduce((a, b) => a + b, 0) / backlog.length) * 10) / 10,
      purchase_ms: { p50: Math.round(percentile(sorted, 50)), max: Math.round(sorted[sorted.length - 1]), all: latencies.map(Math.round) },
      /** The part of it the carrier call spent waiting in its task queue (the rate limit's share). */
      buy_queued_ms: { p50: Math.round(percentile(sortedWaits, 50)), max: Math.round(sortedWaits[sortedWaits.length - 1]), all: waits.map(Math.round) },
    };
  } finally {
    await stack.stop();
  }
}

export async function main(argv: string[]): Promise<number> {
  const usage = 'usage: npm run bench -- rate-split [--tracked <n>] [--purchases <n>] [--rps <n>]\n';
  const flags = parseScenarioFlags(argv, { tracked: '10', purchases: '5', rps: '2' }, usage);
  if ('exit' in flags) return flags.exit;
  const { values } = flags;
  const o = { tracked: Number(values.tracked), purchases: Number(values.purchases), rps: Number(values.rps) };
  if (![o.tracked, o.purchases, o.rps].every((n) => Number.isInteger(n) && n > 0)) {
    process.stderr.write(usage);
    return 2;
  }
  const infra = await startInfra(log);
  try {
    const results = [];
    for (const layout of LAYOUTS) results.push(await measure(infra, layout, o));
    const cell = (v: number, w = 10) => String(v).padStart(w);
    const rows = results.map(
      (r) =>
        `${r.layout.padEnd(28)} ${cell(r.queued_polls_mean, 12)} ${cell(r.purchase_ms.p50)} ${cell(r.purchase_ms.max)} ${cell(r.buy_queued_ms.p50, 14)} ${cell(r.buy_queued_ms.max, 14)}`,
    );
    process.stdout.write(
      [
        `purchase latency under a tracking-poll backlog (Acme limited to ${o.rps}/s, ${o.tracked} shipments tracking, ${o.purchases} purchases)`,
        `${'layout'.padEnd(28)} ${'queued polls'.padStart(12)} ${'p50 ms'.padStart(10)} ${'max ms'.padStart(10)} ${'buy queued p50'.padStart(14)} ${'buy queued max'.padStart(14)}`,
        ...rows,
        '',
        JSON.stringify({ scenario: 'rate-split', options: o, results }, null, 2),
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    await infra.stop();
  }
}
