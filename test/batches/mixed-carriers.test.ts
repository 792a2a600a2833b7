// A day's 300 orders bought as batches over all four carriers on the real stack (API, Temporal dev
// server, PostgreSQL, workers, the carrier simulator with UPS and USPS): a GBP account whose wallet
// runs out part of the way (acme, swiftpost, ups_standard on GB routes) and a USD account (ups_ground
// and USPS on US routes), with carrier refusals on each carrier. Each item ends purchased or failed
// with its reason; each charge is its item's price; one label at the carrier per purchased item; one
// PDF page per purchased label; batch.completed delivered once per batch.
import { randomBytes } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntriesOf } from '../../db/index.js';
import { parseAmount } from '../../domain/index.js';
import { eventually, simControl } from '../support/sim.js';
import { address, call, createAccount, expectLedgerConsistent, parcel, startTestStack, type TestAccount, type TestStack } from '../support/stack.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

let stack: TestStack;
let sim: ReturnType<typeof simControl>;
const receivers: Receiver[] = [];
beforeAll(async () => {
  // The carriers' own limits (USPS: one call a second) are lifted: this is about outcomes, not pacing.
  stack = await startTestStack({ webhookAllowPrivate: true, carrierRateLimits: { acme: 200, swiftpost: 200, ups: 200, usps: 200 } });
  sim = simControl(stack.simUrl);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
});

const GB_TO = address({ city: 'Leeds', postcode: 'LS1 4AP' });
const US_FROM = { name: 'Acme Widgets', line1: '2311 York Rd', city: 'Timonium', state: 'MD', postcode: '21093', country: 'US' };
const US_TO = { name: 'Happy Dog Pet Supply', line1: '123 Main St', city: 'Alpharetta', state: 'GA', postcode: '30005', country: 'US' };

interface Plan {
  services: string[];
  from: Record<string, string>;
  to: Record<string, string>;
  /** Items the carrier refuses (a fault matched by a word of the recipient's name). */
  refused: number[];
}

function orders(plan: Plan, count: number, run: string, refuseWord: string) {
  return Array.from({ length: count }, (_, i) => ({
    service: plan.services[i % plan.services.length],
    from: plan.from,
    to: { ...plan.to, name: plan.refused.includes(i) ? `${refuseWord} Recipient` : `Recipient ${i}` },
    parcel: parcel(),
    reference: `${run}-${i}`,
  }));
}

async function grossOf(key: string, from: unknown, to: unknown): Promise<Map<string, number>> {
  const q = await call(stack, 'POST', '/api/v1/quotes', { key, body: { from, to, parcel: parcel() } });
  expect(q.status, q.text).toBe(200);
  return new Map(q.body.data.map((d: any) => [d.service.code, parseAmount(d.price.gross)!]));
}

async function itemsOf(key: string, id: string) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await call(stack, 'GET', `/api/v1/batches/${id}/shipments?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
    expect(page.status, page.text).toBe(200);
    out.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return out;
}

async function pdfPages(key: string, batchId: string): Promise<number> {
  const res = await request(`${stack.url}/api/v1/batches/${batchId}/label`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.statusCode).toBe(200);
  return (await PDFDocument.load(Buffer.from(await res.body.arrayBuffer()))).getPageCount();
}

describe('a 300-item batch over all four carriers', () => {
  it('ends every item purchased or failed with its reason; charges match items; one page per label; batch.completed once per batch', async () => {
    const run = randomBytes(4).toString('hex');
    // Upper case and digits: a word every carrier's request carries as it is.
    const refuseWord = `RFS${run.toUpperCase()}`;
    const gb: Plan = { services: ['acme_ground', 'swiftpost_standard', 'ups_standard'], from: address(), to: GB_TO, refused: [3, 7, 11] };
    const us: Plan = { services: ['ups_ground', 'usps_ground_advantage', 'usps_priority_mail'], from: US_FROM, to: US_TO, refused: [3, 4, 50] };
    const gbOrders = orders(gb, 150, `${run}-gb`, refuseWord);
    const usOrders = orders(us, 150, `${run}-us`, refuseWord);

    const probeGb = await createAccount(stack, { topUp: '1.00' });
    const probeUs = await createAccount(stack, { topUp: '1.00', currency: 'USD' });
    const gbPrices = await grossOf(probeGb.liveKey, gb.from, gb.to);
    const usPrices = await grossOf(probeUs.liveKey, us.from, us.to);
    for (const s of gb.services) expect(gbPrices.get(s), s).toBeGreaterThan(0);
    for (const s of us.services) expect(usPrices.get(s), s).toBeGreaterThan(0);
    // The GBP wallet holds about 60% of what its buyable items cost: it runs out part of the way.
    const gbBuyable = gbOrders.reduce((sum, o, i) => (gb.refused.includes(i) ? sum : sum + gbPrices.get(o.service)!), 0);
    const gbTopUp = Math.floor(gbBuyable * 0.6);
    const usTopUp = 1_000_000;
    const gbAcct = await createAccount(stack, { topUp: (gbTopUp / 100).toFixed(2) });
    const usAcct = await createAccount(stack, { topUp: (usTopUp / 100).toFixed(2), currency: 'USD' });

    const hooks = new Map<string, Receiver>();
    for (const acct of [gbAcct, usAcct]) {
      const r = await startReceiver();
      receivers.push(r);
      hooks.set(acct.id, r);
      const ep = await call(stack, 'POST', '/api/v1/webhook_endpoints', { key: acct.liveKey, body: { url: r.url, events: ['batch.completed'] } });
      expect(ep.status, ep.text).toBe(201);
    }
    for (const carrier of ['acme', 'swiftpost', 'ups', 'usps']) {
      await sim.fault({ carrier, operation: 'buy', mode: 'error', status: 400, match: refuseWord, times: -1 });
    }

    const started = await Promise.all(
      ([[gbAcct, gbOrders], [usAcct, usOrders]] as const).map(async ([acct, shipments]) => {
        const a = await call(stack, 'POST', '/api/v1/batches', { key: acct.liveKey, body: { shipments } });
        expect(a.status, a.text.slice(0, 300)).toBe(202);
        expect(a.body.counts.total).toBe(150);
        return a.body.id as string;
      }),
    );
    const done = await Promise.all(
      ([[gbAcct, started[0]], [usAcct, started[1]]] as const).map(([acct, id]) => {
        let last: unknown;
        return eventually(async () => {
          const b = await call(stack, 'GET', `/api/v1/batches/${id}`, { key: acct.liveKey });
          last = b.body.counts;
          return b.body.status === 'completed' ? b.body : undefined;
        }, 200_000, `batch ${id} to complete`).catch((err: Error) => {
          throw new Error(`${err.message} (counts ${JSON.stringify(last)})`);
        });
      }),
    );
    await sim.clearFaults(refuseWord);

    const check = async (acct: TestAccount, batchId: string, batch: any, plan: Plan, sent: typeof gbOrders, topUp: number, currency: string) => {
      expect(batch.counts.pending).toBe(0);
      expect(batch.counts.purchased + batch.counts.failed).toBe(150);
      const items = await itemsOf(acct.liveKey, batchId);
      expect(items.map((s) => s.reference)).toEqual(sent.map((o) => o.reference));
      expect(items.every((s) => s.batch_id === batchId)).toBe(true);
      for (const [i, s] of items.entries()) {
        expect(s.status === 'purchased' || s.status === 'failed', `${s.id} ${s.status}`).toBe(true);
        if (s.status === 'failed') {
          expect(typeof s.failure?.code, `${s.id} failed without a reason`).toBe('string');
          expect(s.failure.message.length).toBeGreaterThan(0);
        }
        if (plan.refused.includes(i)) expect([i, s.status, s.failure?.code]).toEqual([i, 'failed', 'carrier_error']);
      }
      const bought = items.filter((s) => s.status === 'purchased');
      expect(bought.length).toBe(batch.counts.purchased);
      expect(new Set(bought.map((s) => s.service.code))).toEqual(new Set(plan.services));

      // One label at the carrier per purchased item; none live for a failed one.
      for (const s of items) {
        const live = (await sim.purchases(s.id)).filter((p) => !p.cancelled);
        expect([s.id, s.status, live.length]).toEqual([s.id, s.status, s.status === 'purchased' ? 1 : 0]);
        if (s.status === 'purchased') expect(live[0].carrier).toBe(s.service.carrier);
      }
      // Each charge is its item's price, once; nothing else moved; no hold left open.
      const captures = (await ledgerEntriesOf(stack.database.db, acct.id)).filter((e) => e.kind === 'capture');
      expect(captures.map((c) => c.shipmentId).sort()).toEqual(bought.map((s) => s.id).sort());
      for (const s of bought) {
        expect(s.price.currency).toBe(currency);
        expect(captures.find((c) => c.shipmentId === s.id)!.amount).toBe(parseAmount(s.price.gross)!);
      }
      const account = await expectLedgerConsistent(stack, acct.id);
      expect(account.pending).toBe(0);
      expect(account.balance).toBe(topUp - bought.reduce((sum, s) => sum + parseAmount(s.price.gross)!, 0));
      // One page per purchased label in the merged file.
      expect(await pdfPages(acct.liveKey, batchId)).toBe(bought.length);
      return items;
    };
    const gbItems = await check(gbAcct, started[0], done[0], gb, gbOrders, gbTopUp, 'GBP');
    const usItems = await check(usAcct, started[1], done[1], us, usOrders, usTopUp, 'USD');

    // The GBP wallet ran out part of the way: the other failures are for funds, and some items were bought.
    const gbOthers = gbItems.filter((s, i) => !gb.refused.includes(i) && s.status === 'failed');
    expect(gbOthers.length).toBeGreaterThan(0);
    expect(gbOthers.filter((s) => s.failure.code !== 'insufficient_funds').map((s) => `${s.id} ${s.service.code}: ${s.failure.code}: ${s.failure.message}`)).toEqual([]);
    expect(done[0].counts.purchased).toBeGreaterThan(50);
    // The USD account had the funds: only the refusals failed.
    expect(usItems.filter((s) => s.status === 'failed').length).toBe(us.refused.length);
    expect(new Set(usItems.filter((s) => s.status === 'purchased').map((s) => s.service.carrier))).toEqual(new Set(['ups', 'usps']));
    expect(new Set(gbItems.filter((s) => s.status === 'purchased').map((s) => s.service.carrier))).toEqual(new Set(['acme', 'swiftpost', 'ups']));

    // batch.completed, once per batch, to each account's endpoint.
    for (const [i, acct] of [gbAcct, usAcct].entries()) {
      const r = hooks.get(acct.id)!;
      const event = await eventually(async () => r.received.find((x) => x.body?.type === 'batch.completed'), 30_000, 'batch.completed');
      expect(event.body.data.object).toMatchObject({ id: started[i], status: 'completed', counts: done[i].counts });
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const acct of [gbAcct, usAcct]) {
      const r = hooks.get(acct.id)!;
      expect(r.received.filter((x) => x.body?.type === 'batch.completed')).toHaveLength(1);
      expect((await call(stack, 'GET', '/api/v1/events?type=batch.completed', { key: acct.liveKey })).body.data).toHaveLength(1);
    }
  }, 300_000);
});
