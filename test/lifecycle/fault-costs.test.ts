import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/index.js';
import { eventually, simControl } from '../support/sim.js';
import { call, createAccount, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { GB_ROUTE, US_ROUTE } from '../../tools/chaos/routes.js';

// What one transient carrier fault on the buy costs a purchase, for each carrier, with production's
// waits and time-outs: from the request to the state the client reads. Each ends purchased, bought
// once, within seconds; the table printed is what chose the retry intervals and deadlines of
// workflows/purchase.ts, workflows/proxies.ts and the carriers' own (a quiet 2-core machine:
// 0.1 to 1.5 s with no fault, about the Retry-After for a 429, the time-out plus a lookup for one).
let stack: TestStack;
let sim: ReturnType<typeof simControl>;
beforeAll(async () => {
  const d = parseConfig({});
  stack = await startTestStack({ purchaseWaitMs: d.purchaseWaitMs, purchaseDeadlineMs: d.purchaseDeadlineMs, carrierTimeoutMs: d.carrierTimeoutMs });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await stack?.stop();
});

const FAULTS: Record<string, Record<string, unknown> | null> = {
  nothing: null,
  '503': { mode: 'error', status: 503 },
  '429, Retry-After 2': { mode: 'rate_limit', retry_after: 2 },
  'time-out': { mode: 'timeout' },
  'slow by 9 s': { mode: 'slow', delay_ms: 9_000 },
  'answer lost': { mode: 'lost_answer' },
  'committed 3 s late': { mode: 'late_commit', delay_ms: 3_000 },
};
const SERVICES: Array<[string, string]> = [
  ['acme', 'acme_ground'],
  ['swiftpost', 'swiftpost_standard'],
  ['ups', 'ups_ground'],
  ['usps', 'usps_ground_advantage'],
];

/** One purchase whose buy meets `fault` once; its status and how long the client waited for it. */
async function purchaseMeeting(acct: TestAccount, carrier: string, service: string, fault: Record<string, unknown> | null) {
  const marker = `fc-${randomUUID().slice(0, 13)}`;
  const route = carrier === 'ups' || carrier === 'usps' ? US_ROUTE : GB_ROUTE;
  if (fault) await sim.fault({ carrier, operation: 'buy', match: marker, times: 1, ...fault } as Parameters<typeof sim.fault>[0]);
  const started = Date.now();
  const body = { service, from: route.from, to: route.to(marker), parcel: { weight_g: 1000, length_mm: 300, width_mm: 200, height_mm: 100 } };
  const a = await call(stack, 'POST', '/api/v1/shipments', { key: acct.liveKey, headers: { 'idempotency-key': randomUUID() }, body });
  const status: string = a.status === 202
    ? await eventually(async () => {
        const s = await call(stack, 'GET', `/api/v1/shipments/${a.body.id}`, { key: acct.liveKey });
        return s.body.status === 'pending' ? undefined : (s.body.status as string);
      }, 120_000, 'the purchase to end')
    : (a.body?.status ?? a.body?.code);
  const tookMs = Date.now() - started;
  await sim.clearFaults(marker);
  return { id: (a.body?.id ?? a.body?.shipment_id) as string, status, tookMs };
}

describe('one carrier fault on the buy', () => {
  it('costs seconds at every carrier: each purchase ends purchased, bought once', { timeout: 900_000 }, async () => {
    const gb = await createAccount(stack, { topUp: '5000.00' });
    const us = await createAccount(stack, { topUp: '5000.00', currency: 'USD' });
    const rows: string[] = [];
    const results = await Promise.all(
      SERVICES.map(async ([carrier, service]) => {
        const out = [];
        for (const [name, fault] of Object.entries(FAULTS)) {
          const r = await purchaseMeeting(carrier === 'ups' || carrier === 'usps' ? us : gb, carrier, service, fault);
          rows.push(`| ${carrier} | ${name} | ${(r.tookMs / 1000).toFixed(1)} s |`);
          out.push({ carrier, name, ...r });
        }
        return out;
      }),
    );
    process.stdout.write(`\n| carrier | fault on the buy | request to final state |\n|---|---|---|\n${rows.sort().join('\n')}\n`);
    for (const r of results.flat()) {
      expect(r.status, `${r.carrier} ${r.name}`).toBe('purchased');
      expect((await sim.purchases(r.id)).filter((l) => !l.cancelled), `${r.carrier} ${r.name}`).toHaveLength(1);
      // The speed goal (15 s at p95) is `npm run chaos`'s to measure, not a test's. This bound only
      // catches a fault that waits for minutes (a retry interval, a settlement or the sweep), with
      // room for a busy machine: on a quiet one each took under 15 s.
      expect(r.tookMs, `${r.carrier} ${r.name}`).toBeLessThan(90_000);
    }
  });
});
