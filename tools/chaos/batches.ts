import pg from 'pg';
import { PDFDocument } from 'pdf-lib';
import { request } from 'undici';
import { parseAmount } from '../../domain/index.js';
import { billedLabel, type Check } from './checks.js';
import type { createClients } from './clients.js';
import { US_SERVICES, type ChaosCurrency } from './routes.js';
import { batchItemPlan, type TermsPools } from './terms.js';

/**
 * The batch phase of the chaos run: batches bought through the same faults as the single purchases
 * (worker SIGKILLs, the Temporal and PostgreSQL restarts, carrier faults), one per currency so that
 * every carrier is in it: GB routes in GBP (acme, swiftpost, ups_standard) and US routes in USD
 * (ups_ground, USPS), with items abroad carrying customs and return labels among them
 * (tools/chaos/terms.ts). A careful client posts each with an Idempotency-Key, retrying as for a
 * purchase, and follows it until `completed`.
 */
type Clients = ReturnType<typeof createClients>;

const BATCH_PLANS: Array<{ currency: ChaosCurrency; services: readonly string[] }> = [
  { currency: 'GBP', services: ['acme_ground', 'swiftpost_standard', 'ups_standard'] },
  { currency: 'USD', services: US_SERVICES },
];

export interface BatchRun {
  accountId: string;
  key: string;
  currency: string;
  idempotencyKey: string;
  total: number;
  /** The batch's id once a POST answered 202. */
  id: string | null;
  /** The batch as last read: `completed` once it ended; null when the client gave up. */
  final: any | null;
}

/** A batch account per currency: a wallet with far more than its batch costs. */
export function batchPlans(items: number) {
  return BATCH_PLANS.map((plan, i) => ({ ...plan, items: i === 0 ? Math.ceil(items / 2) : Math.floor(items / 2) }));
}

export async function runBatch(
  clients: Clients,
  run: BatchRun,
  plan: ReturnType<typeof batchPlans>[number],
  pools: TermsPools,
  seed: number,
  giveUpMs: number,
): Promise<void> {
  const shipments = Array.from({ length: plan.items }, (_, i) => batchItemPlan(i, plan.currency, pools, plan.services, `chaos-${seed}-batch-${plan.currency}-${i}`));
  const a = await clients.careful('POST', '/api/v1/batches', run.key, { shipments }, run.idempotencyKey);
  if (a?.status !== 202 || typeof a.body?.id !== 'string') return;
  run.id = a.body.id;
  const until = Date.now() + giveUpMs;
  while (Date.now() < until) {
    const b = await clients.careful('GET', `/api/v1/batches/${run.id}`, run.key);
    if (b?.status === 200 && b.body.status === 'completed') {
      run.final = b.body;
      return;
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function itemsOf(clients: Clients, run: BatchRun): Promise<any[] | null> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const page = await clients.careful('GET', `/api/v1/batches/${run.id}/shipments?limit=100${cursor ? `&cursor=${cursor}` : ''}`, run.key);
    if (page?.status !== 200) return null;
    out.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return out;
}

/** The pages of a PDF the API serves at `path` (a batch's merged file, or one label in `pdf_6x4`). */
async function pdfPages(apiUrl: string, key: string, path: string): Promise<number | string> {
  const res = await request(`${apiUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) return `HTTP ${res.statusCode}`;
  return (await PDFDocument.load(bytes)).getPageCount();
}

type SimLabel = { cancelled: boolean; tracking_number: string };
type Item = { id: string; status: string; service?: { carrier?: string | null }; tracking?: { number?: string | null } };

/** How many of an item's labels at the simulator the carrier bills (billedLabel). */
function liveLabels(s: Item, labels: SimLabel[]): number {
  const own = { carrier: s.service?.carrier ?? null, status: s.status, trackingNumber: s.tracking?.number ?? null };
  return labels.filter((l) => !l.cancelled && billedLabel(own, l)).length;
}

/** A batch item bought more than once, or a failed one with a label the carrier bills: what the check reports. */
export function itemLabelsProblem(s: Item, labels: SimLabel[]): string | undefined {
  const live = liveLabels(s, labels);
  return live !== (s.status === 'purchased' ? 1 : 0) ? `${s.id} ${s.status} with ${live} live labels` : undefined;
}

/** The batch phase's checks, each a row of the table. */
export async function batchChecks(o: { databaseUrl: string; simUrl: string; apiUrl: string; clients: Clients; runs: BatchRun[]; acked: Map<string, number> }): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (name: string, bad: string[], okDetail: string) =>
    checks.push({ name, ok: bad.length === 0, detail: bad.length ? `${bad.length}: ${bad.slice(0, 4).join('; ')}${bad.length > 4 ? '; …' : ''}` : okDetail });

  const ended: string[] = [];
  const doubled: string[] = [];
  const charges: string[] = [];
  const pages: string[] = [];
  const completedEvents: string[] = [];
  const tally = { purchased: 0, failed: 0, labels: 0, captures: 0, deliveries: 0 };
  const reasons = new Map<string, number>();
  const db = new pg.Client({ connectionString: o.databaseUrl });
  await db.connect();
  try {
    for (const run of o.runs) {
      const name = `${run.currency} batch ${run.id ?? `(key ${run.idempotencyKey})`}`;
      if (!run.id) {
        ended.push(`${name}: never accepted`);
        continue;
      }
      if (!run.final) {
        ended.push(`${name}: not completed`);
        continue;
      }
      const c = run.final.counts;
      if (c.pending !== 0 || c.purchased + c.failed !== run.total) ended.push(`${name}: counts ${JSON.stringify(c)}`);
      const items = await itemsOf(o.clients, run);
      if (!items) {
        ended.push(`${name}: its items could not be listed`);
        continue;
      }
      if (items.length !== run.total) ended.push(`${name}: ${items.length} items listed of ${run.total}`);
      const entries = (await db.query(`select shipment_id, kind, amount from ledger_entries where account_id = $1 and shipment_id is not null`, [run.accountId])).rows as Array<{ shipment_id: string; kind: string; amount: string }>;
      for (const s of items) {
        if (s.status === 'purchased') tally.purchased++;
        else if (s.status === 'failed') {
          tally.failed++;
          reasons.set(s.failure?.code ?? 'none', (reasons.get(s.failure?.code ?? 'none') ?? 0) + 1);
          if (typeof s.failure?.code !== 'string') ended.push(`${s.id} failed without a reason`);
        } else ended.push(`${s.id} ${s.status}`);
        // Bought at most once: the simulator's purchases under this shipment's reference that the
        // carrier bills (at one without cancellation, a lost answer's first label is left unused).
        const res = await request(`${o.simUrl}/_sim/purchases?reference=${encodeURIComponent(s.id)}`);
        const labels = ((await res.body.json()) as { data: SimLabel[] }).data;
        const live = liveLabels(s, labels);
        tally.labels += live;
        const problem = itemLabelsProblem(s, labels);
        if (problem) doubled.push(problem);
        const captures = entries.filter((e) => e.shipment_id === s.id && e.kind === 'capture');
        tally.captures += captures.length;
        if (s.status === 'purchased') {
          if (captures.length !== 1) charges.push(`${s.id} captured ${captures.length} times`);
          else if (Number(captures[0].amount) !== parseAmount(s.price.gross)) charges.push(`${s.id} captured ${captures[0].amount} for a price of ${s.price.gross}`);
        } else if (captures.length) charges.push(`${s.id} ${s.status} but captured`);
      }
      const holds = entries.filter((e) => e.kind === 'hold').length;
      const closed = entries.filter((e) => e.kind === 'capture' || e.kind === 'release').length;
      if (holds !== closed) charges.push(`${name}: ${holds} holds, ${closed} captured or released`);
      const bought = items.filter((s) => s.status === 'purchased');
      const purchased = bought.length;
      // A label is one page, but USPS prints its customs form as further pages of the label file
      // itself (the API guide's USPS section): the merged file has each label's pages.
      let labelPages = 0;
      for (const s of bought) {
        const n = await pdfPages(o.apiUrl, run.key, `/shipments/${s.id}/label?format=pdf_6x4`).catch((err: Error) => err.message);
        if (typeof n === 'number') labelPages += n;
        else pages.push(`${s.id}: its label could not be read (${n})`);
      }
      const got = await pdfPages(o.apiUrl, run.key, `/batches/${run.id}/label`).catch((err: Error) => err.message);
      if (got !== labelPages) pages.push(`${name}: merged file ${typeof got === 'number' ? `${got} pages` : got} for ${purchased} labels of ${labelPages} pages`);
      const events = (await db.query(`select id from events where account_id = $1 and type = 'batch.completed' and data #>> '{object,id}' = $2`, [run.accountId, run.id])).rows as Array<{ id: string }>;
      if (events.length !== 1) completedEvents.push(`${name}: ${events.length} batch.completed events stored`);
      for (const e of events) {
        const n = o.acked.get(e.id) ?? 0;
        tally.deliveries += n;
        if (n === 0) completedEvents.push(`${name}: ${e.id} never acknowledged`);
      }
    }
  } finally {
    await db.end();
  }
  const why = reasons.size ? ` (${[...reasons].map(([c, n]) => `${c} ×${n}`).join(', ')})` : '';
  const total = o.runs.reduce((n, r) => n + r.total, 0);
  add('batches: every batch completed, every item purchased or failed with its reason', ended, `${o.runs.length} batches, ${total} items: ${tally.purchased} purchased, ${tally.failed} failed${why}`);
  add('batches: no item bought twice (one live label per purchased item, none per failed)', doubled, `${tally.labels} live labels`);
  add("batches: each purchased item charged once, its price; every hold closed", charges, `${tally.captures} captures`);
  add('batches: the merged file has every purchased label’s pages', pages, `${o.runs.length} files`);
  add('batches: batch.completed stored once per batch and delivered', completedEvents, `${o.runs.length} events, ${tally.deliveries} acknowledged deliveries`);
  return checks;
}
