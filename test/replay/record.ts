/**
 * Records workflow histories from real runs, for the replay test to run against the current code:
 *   npm run record-histories                                  (every scenario below)
 *   npm run record-histories -- --only <scenario> [--as <name>]  (one scenario; a one-history one saved as <name>)
 * Scenarios: runs (a purchase to delivered, a void, a refusal, retries, a webhook delivery),
 * late-scan, cancel-during-void, older-scan, track-alert, history-bound, one-step, local-poll, own-queue, buy-timeout, settle. Each starts a stack of its own on one
 * PostgreSQL, Temporal dev server and simulator, drives real purchases through the API, and writes
 * each workflow's history to test/replay/histories/<name>.json. Record anew (and commit) after a
 * deliberate change to a workflow's commands; never to silence a failure.
 */
import http from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { type Config, devCarrierWebhookSecret } from '../../config/index.js';
import { shipmentWorkflowId } from '../../contract/index.js';
import { startInfra } from '../support/infra.js';
import { simControl } from '../support/sim.js';
import { address, call, createAccount, parcel, startTestStack, terminateDuring, type TestAccount, type TestStack } from '../support/stack.js';

const OUT = path.resolve(import.meta.dirname, 'histories');
const log = (msg: string) => process.stderr.write(`[record] ${msg}\n`);

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A workflow's runs, newest first (the dev server's visibility lists them so). */
async function runsOf(stack: TestStack, workflowId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of stack.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) ids.push(w.runId);
  return ids;
}

/** Waits for the run after a workflow's `nth` (0: its first), then saves the `nth`: a run that continued as new. */
async function saveContinuedRun(stack: TestStack, name: string, workflowId: string, nth: number, what: string) {
  const newestFirst = await waitFor(what, async () => {
    const ids = await runsOf(stack, workflowId);
    return ids.length >= nth + 2 ? ids : undefined;
  }, 120_000);
  await save(stack, name, workflowId, newestFirst[newestFirst.length - 1 - nth]);
}

async function save(stack: TestStack, name: string, workflowId: string, runId?: string) {
  const handle = stack.temporal.workflow.getHandle(workflowId, runId);
  await waitFor(`${workflowId} to close`, async () => ((await handle.describe()).status.name === 'RUNNING' ? undefined : true));
  const history = await handle.fetchHistory();
  await writeFile(path.join(OUT, `${name}.json`), `${historyToJSON(history)}\n`);
  log(`${name}: ${history.events?.length ?? 0} events`);
}

/** What a scenario drives: its own stack, one account, the simulator, and where it saves. */
interface Scene {
  stack: TestStack;
  acct: TestAccount;
  order: { service: string; from: ReturnType<typeof address>; to: ReturnType<typeof address>; parcel: ReturnType<typeof parcel>; reference: string };
  carrierSimUrl: string;
  sim(path: string, body: unknown): Promise<Response>;
  status(id: string): Promise<string>;
  /** The name to save a one-history scenario under: `--as`, or its own. */
  name(own: string): string;
}

interface Scenario {
  /** The stack's settings beside the recording's defaults. */
  config?: Partial<Config>;
  run(scene: Scene): Promise<void>;
}

/** A live purchase followed until its `nth` run (0: its first) continues as new: that run saved, the label then voided. */
function recordContinuedRun(file: string, nth: number, what: string): Scenario['run'] {
  return async ({ stack, acct, order, name }) => {
    const bought = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order })).body;
    await saveContinuedRun(stack, name(file), shipmentWorkflowId(bought.id), nth, what);
    await call(stack, 'POST', `/api/v1/shipments/${bought.id}/void`, { key: acct.liveKey });
  };
}

/** A live purchase whose second run polls, finds its scan and is saved as it continues as new at the short bound. */
function recordScanAtShortBound(file: string): Scenario['run'] {
  return async ({ stack, acct, order, sim, name }) => {
    const bought = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order })).body;
    await sim('/_sim/scans', { tracking_number: bought.tracking.number, status: 'in_transit' });
    await saveContinuedRun(stack, name(file), shipmentWorkflowId(bought.id), 1, 'a third run');
    await sim('/_sim/scans', { tracking_number: bought.tracking.number, status: 'delivered' });
  };
}

const SCENARIOS: Record<string, Scenario> = {
  // A delivery and a scan after it in one carrier push: the scan after delivery is set aside.
  'late-scan': {
    async run({ stack, acct, order, name }) {
      const late = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order })).body;
      const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
      await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', {
        headers: { authorization: `Bearer ${devCarrierWebhookSecret('acme')}` },
        body: {
          tracking_number: late.tracking.number,
          scans: [
            { id: 'late-1', occurred_at: at(1), status: 'delivered' },
            { id: 'late-2', occurred_at: at(2), status: 'exception', description: 'Returned to depot' },
          ],
        },
      });
      await save(stack, name('shipment-late-scan-set-aside'), shipmentWorkflowId(late.id));
    },
  },

  // A purchase to delivered through continue-as-new, a void, a refusal, a carrier's retries, a webhook delivery.
  runs: {
    async run({ stack, acct, order, sim }) {
      // A purchase followed to delivered, through several continue-as-new runs.
      const delivered = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order })).body;
      for (const status of ['in_transit', 'exception', 'in_transit', 'delivered']) {
        await sim('/_sim/scans', { tracking_number: delivered.tracking.number, status });
        await new Promise((r) => setTimeout(r, 1500));
      }
      const wfId = shipmentWorkflowId(delivered.id);
      await save(stack, 'shipment-delivered-last-run', wfId);
      const runs: string[] = [];
      for await (const w of stack.temporal.workflow.list({ query: `WorkflowId = '${wfId}'` })) runs.push(w.runId);
      await save(stack, 'shipment-purchase-first-run', wfId, runs[runs.length - 1]);

      // A purchase, then a void.
      const voided = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order })).body;
      await call(stack, 'POST', `/api/v1/shipments/${voided.id}/void`, { key: acct.liveKey });
      await save(stack, 'shipment-voided', shipmentWorkflowId(voided.id));

      // A purchase the carrier refuses: compensation.
      const marker = 'replay-refused';
      await sim('/_sim/faults', { carrier: 'acme', operation: 'buy', mode: 'error', status: 422, match: marker });
      const refused = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: { ...order, to: address({ name: marker }) } })).body;
      await save(stack, 'shipment-carrier-refused', shipmentWorkflowId(refused.shipment_id));

      // A carrier that fails twice before it sells: the workflow's own retries, with timers.
      const flaky = 'replay-flaky';
      await sim('/_sim/faults', { carrier: 'acme', operation: 'buy', mode: 'error', status: 503, times: 2, match: flaky });
      const retried = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: { ...order, to: address({ name: flaky }) } })).body;
      await call(stack, 'POST', `/api/v1/shipments/${retried.id}/void`, { key: acct.liveKey });
      await save(stack, 'shipment-carrier-retried-then-voided', shipmentWorkflowId(retried.id));

      // A webhook delivery that fails once and is retried 10 s later.
      let hits = 0;
      const receiver = http.createServer((req, res) => {
        req.resume();
        hits++;
        res.writeHead(hits === 1 ? 500 : 200).end(); // the first delivery fails once, then succeeds
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      try {
        const endpoint = (
          await call(stack, 'POST', '/api/v1/webhook_endpoints', {
            key: acct.testKey,
            body: { url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`, events: ['shipment.purchased'] },
          })
        ).body;
        const sandbox = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.testKey, body: order })).body;
        const event = await waitFor('the purchased event', async () => {
          const e = await call(stack, 'GET', `/api/v1/events?shipment=${sandbox.id}&type=shipment.purchased`, { key: acct.testKey });
          return e.body.data[0];
        });
        await save(stack, 'webhook-retried-then-delivered', `webhook/${event.id}/${endpoint.id}`);
      } finally {
        receiver.close();
      }
    },
  },

  // An operator's Cancel while a void retries an unreachable carrier: back to purchased by the carrier's record.
  'cancel-during-void': {
    async run({ stack, acct, order, sim, name }) {
      const stopped = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order })).body;
      await sim('/_sim/faults', { carrier: 'acme', operation: 'cancel', mode: 'error', status: 503, times: -1, match: stopped.id });
      const voiding = call(stack, 'POST', `/api/v1/shipments/${stopped.id}/void`, { key: acct.liveKey });
      await waitFor('the void to be under way', async () => {
        const s = await call(stack, 'GET', `/api/v1/shipments/${stopped.id}`, { key: acct.liveKey });
        return s.body.status === 'voiding' ? true : undefined;
      });
      await new Promise((r) => setTimeout(r, 3000)); // a few cancellation attempts
      await stack.temporal.workflow.getHandle(shipmentWorkflowId(stopped.id)).cancel();
      await save(stack, name('shipment-cancel-during-void-settled'), shipmentWorkflowId(stopped.id));
      await voiding;
    },
  },

  // A scan pushed after a newer one (an exception, then an in-transit scan of a minute before it),
  // then the delivery: the older scan moves neither status back.
  'older-scan': {
    // One run sees every scan (no continue-as-new between them, no poll to add scans).
    config: { trackingContinueAsNewAfterPolls: undefined, trackingPollMinMs: 60_000, trackingPollMaxMs: 60_000 },
    async run({ stack, acct, order, name }) {
      const bought = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order })).body;
      const at = (s: number) => new Date(Date.now() - 600_000 + s * 60_000).toISOString();
      const push = async (scan: { id: string; occurred_at: string; status: string; description?: string }) => {
        await call(stack, 'POST', '/api/v1/carrier-webhooks/acme', {
          headers: { authorization: `Bearer ${devCarrierWebhookSecret('acme')}` },
          body: { tracking_number: bought.tracking.number, scans: [scan] },
        });
        await waitFor(`scan ${scan.id} in the history`, async () => {
          const t = await call(stack, 'GET', `/api/v1/tracking/${bought.tracking.number}`, { key: acct.liveKey });
          return (t.body.events as { description?: string }[] | undefined)?.some((e) => e.description === scan.description) ? true : undefined;
        });
      };
      await push({ id: 'older-1', occurred_at: at(2), status: 'exception', description: 'Held at depot' });
      await push({ id: 'older-2', occurred_at: at(1), status: 'in_transit', description: 'Left the sorting centre' });
      await push({ id: 'older-3', occurred_at: at(3), status: 'delivered', description: 'Delivered' });
      await save(stack, name('shipment-older-scan-kept-status'), shipmentWorkflowId(bought.id));
    },
  },

  // A UPS label under Track Alert: subscribed as its tracking starts, walked to delivered by the
  // simulator's pushes alone (polls a minute apart, so none comes first).
  'track-alert': {
    config: { trackingContinueAsNewAfterPolls: undefined, trackingPollMinMs: 60_000, trackingPollMaxMs: 60_000 },
    async run({ stack, sim, name, carrierSimUrl }) {
      const push = `${stack.url}/api/v1/carrier-webhooks/ups`;
      await sim('/_sim/ups/track-alert', { url: `${push}/track-alert`, token_url: `${push}/oauth/token`, client_id: 'ups', client_secret: devCarrierWebhookSecret('ups') });
      try {
        const usd = await createAccount(stack, { currency: 'USD', topUp: '200.00' });
        const from = { name: 'Replay Shipper', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' };
        const to = { name: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' };
        const bought = (await call(stack, 'POST', '/api/v1/shipments', { key: usd.liveKey, body: { service: 'ups_ground', from, to, parcel: parcel() } })).body;
        const wfId = shipmentWorkflowId(bought.id);
        const subscribed = async () => ((await (await fetch(`${carrierSimUrl}/_sim/ups/track-alert`)).json()) as { subscribed: number }).subscribed;
        await waitFor('the Track Alert subscription', async () => ((await subscribed()) >= 1 ? true : undefined));
        for (const status of ['in_transit', 'out_for_delivery', 'delivered']) {
          await sim('/_sim/scans', { tracking_number: bought.tracking.number, status });
          await new Promise((r) => setTimeout(r, 1500));
        }
        await save(stack, name('shipment-track-alert-delivered'), wfId);
      } finally {
        await fetch(`${carrierSimUrl}/_sim/ups/track-alert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      }
    },
  },

  // A parcel polled until its run's history reaches the bound: that run continues as new, with the patch's marker.
  'history-bound': {
    config: { trackingContinueAsNewAfterPolls: undefined, trackingPollMinMs: 200, trackingPollMaxMs: 200 },
    // Its first run goes on as new onto the tracking queue at its first poll (the own-queue
    // scenario); the second is the one that reaches the bound.
    run: recordContinuedRun('shipment-history-bound-first-run', 1, 'a third run'),
  },

  // A parcel whose scan is written in one step (recordTracking), polled until its run's history
  // reaches the short bound: that run continues as new, with both patches' markers. Its first run
  // goes on as new onto the tracking queue before any poll (the own-queue scenario); the second
  // polls, finds the scan and is the one saved.
  'one-step': {
    config: { trackingContinueAsNewAfterPolls: undefined, trackingPollMinMs: 200, trackingPollMaxMs: 200 },
    run: recordScanAtShortBound('shipment-one-step-short-history'),
  },

  // The same journey with the poll a local activity (pollTracking: a marker in the run's history, no
  // activity on the carrier's queue): the run that finds the scan, saved as it continues as new at
  // the short bound, with the three patches' markers. (The one-step history was recorded before the
  // poll was local; recorded again now, it would be this one.)
  'local-poll': {
    config: { trackingContinueAsNewAfterPolls: undefined, trackingPollMinMs: 200, trackingPollMaxMs: 200 },
    run: recordScanAtShortBound('shipment-local-poll-short-history'),
  },

  // A buy that timed out (the carrier held it past our time-out and bought nothing), looked up, and
  // sent again at once: the buy-backoff-from-send patch's marker and no timer between, then a void.
  'buy-timeout': {
    config: { carrierTimeoutMs: 1_000 },
    async run({ stack, acct, order, sim, name }) {
      const marker = `timeout-${Date.now()}`;
      await sim('/_sim/faults', { carrier: 'acme', operation: 'buy', mode: 'timeout', times: 1, match: marker });
      const bought = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: { ...order, to: address({ name: marker }) } })).body;
      await call(stack, 'POST', `/api/v1/shipments/${bought.id}/void`, { key: acct.liveKey });
      await save(stack, name('shipment-buy-timed-out-sent-again'), shipmentWorkflowId(bought.id));
    },
  },

  // A purchase whose first tracking wait ends on its timer: its run continues as new on the tracking
  // queue (the patch's marker, the continue-as-new command naming that queue), where the poll is made.
  'own-queue': {
    config: { trackingContinueAsNewAfterPolls: undefined, trackingPollMinMs: 1000, trackingPollMaxMs: 1000 },
    run: recordContinuedRun('shipment-own-queue-first-run', 0, 'a run on the tracking queue'),
  },

  // An operator's Terminate mid-purchase and mid-void: the run the sweep starts settles each
  // (workflows/purchase.ts and void.ts), the purchase failed and its late label cancelled, the void
  // back to purchased by the carrier's record, then tracking and a later void in that run.
  settle: {
    // The settling run itself takes the second void: no continue-as-new before it.
    config: { trackingContinueAsNewAfterPolls: undefined, strayLabelSettleMs: 3000, orphanSweep: { intervalMs: 1000, olderThanMs: 2000 } },
    async run({ stack, acct, order, sim, status, carrierSimUrl }) {
      const marker = 'replay-terminated';
      await sim('/_sim/faults', { carrier: 'acme', operation: 'buy', mode: 'late_commit', delay_ms: 2500, times: 1, match: marker });
      const pending = call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: { ...order, to: address({ name: marker }) } });
      const id = await waitFor('the purchase row', async () => {
        const list = await call(stack, 'GET', `/api/v1/shipments?reference=replay`, { key: acct.liveKey });
        return list.body.data?.[0]?.id as string | undefined;
      });
      await terminateDuring(stack, id, 'buyLabel');
      await pending.catch(() => undefined);
      await waitFor('the terminated purchase to be settled', async () => ((await status(id)) === 'failed' ? true : undefined));
      await save(stack, 'shipment-settled-terminated-purchase', shipmentWorkflowId(id));

      const bought = (await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, body: order })).body;
      await sim('/_sim/faults', { carrier: 'acme', operation: 'cancel', mode: 'error', status: 500, times: -1, match: bought.id });
      const voiding = call(stack, 'POST', `/api/v1/shipments/${bought.id}/void`, { key: acct.liveKey });
      await terminateDuring(stack, bought.id, 'cancelLabel');
      await simControl(carrierSimUrl).clearFaults(bought.id);
      await voiding.catch(() => undefined);
      await waitFor('the terminated void to be settled', async () => ((await status(bought.id)) === 'purchased' ? true : undefined));
      await call(stack, 'POST', `/api/v1/shipments/${bought.id}/void`, { key: acct.liveKey });
      await save(stack, 'shipment-settled-terminated-void', shipmentWorkflowId(bought.id));
    },
  },
};

/** Short polls and continue-as-new after two of them, so a few seconds make every kind of history. */
const DEFAULTS: Partial<Config> = {
  trackingPollMinMs: 300,
  trackingPollMaxMs: 600,
  trackingContinueAsNewAfterPolls: 2,
  webhookAllowPrivate: true,
  purchaseWaitMs: 30_000,
};

async function main() {
  const arg = (flag: string) => {
    const at = process.argv.indexOf(flag);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const only = arg('--only');
  const as = arg('--as');
  if (only !== undefined && !(only in SCENARIOS)) throw new Error(`no scenario ${only}; there are: ${Object.keys(SCENARIOS).join(', ')}`);
  if (as !== undefined && only === undefined) throw new Error('--as names the history of one scenario: give --only too');
  await mkdir(OUT, { recursive: true });
  const infra = await startInfra(log);
  try {
    for (const [key, scenario] of Object.entries(SCENARIOS)) {
      if (only !== undefined && key !== only) continue;
      log(`scenario ${key}`);
      const stack = await startTestStack({ ...DEFAULTS, ...scenario.config }, { infra });
      try {
        const acct = await createAccount(stack, { topUp: '100.00' });
        await scenario.run({
          stack,
          acct,
          order: { service: 'acme_ground', from: address(), to: address(), parcel: parcel(), reference: 'replay' },
          carrierSimUrl: infra.carrierSimUrl,
          sim: (p, body) => fetch(`${infra.carrierSimUrl}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
          status: async (id) => (await call(stack, 'GET', `/api/v1/shipments/${id}`, { key: acct.liveKey })).body.status as string,
          name: (own) => as ?? own,
        });
      } finally {
        await stack.stop();
      }
    }
  } finally {
    await infra.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
