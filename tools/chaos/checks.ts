import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { ALL_CARRIER_MODULES } from '../../carriers/index.js';
import { CODE } from '../../domain/index.js';
import type { KeyOutcome, Receiver, Seen } from './clients.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface World {
  databaseUrl: string;
  simUrl: string;
  accountIds: string[];
  keys: KeyOutcome[];
  receiver: Receiver;
  seen: Seen[];
  /** Windows (ms since start) in which a dependency or an API process was down, plus a grace. */
  outages: Array<{ from: number; to: number; what: string }>;
  /** Exits of our processes that no fault caused (`<name>: <when> exit <code>`). */
  crashes: string[];
  /** Deliveries the sweep Schedule started because no announcement had (from the workers' logs). */
  sweptDeliveries: string[];
}

interface ShipmentRow {
  id: string;
  status: string;
  charged_to: string;
  account_id: string;
  carrier: string | null;
  tracking_number: string | null;
}

const NO_CANCELLATION = new Set(ALL_CARRIER_MODULES.filter((m) => m.definition.capabilities.void === 'none').map((m) => m.definition.code));

/** The carrier problems the API guide names (502 carrier_error, 503 carrier_unavailable): a carrier's answer, not ours. */
const CARRIER_PROBLEMS = new Set<string>([CODE.carrier_unavailable, CODE.carrier_error]);
const isCarrierProblem = (s: Seen) => s.code !== null && CARRIER_PROBLEMS.has(s.code);

/**
 * The 5xx answers no outage explains: anything but `service_unavailable` (and the carrier problems
 * 502/503 the API guide names), or a `service_unavailable` to a request that was not in flight while
 * an API process or a dependency was down. One in flight then met it, however late its answer came:
 * a void sent as Temporal went down waits up to 20 s to be accepted before its 503.
 */
export function unexpected5xx(seen: Seen[], outages: Array<{ from: number; to: number }>): string[] {
  const during = (s: Seen) => outages.some((o) => s.sentAtMs <= o.to && s.atMs >= o.from);
  return seen
    .filter((s) => !isCarrierProblem(s))
    .filter((s) => s.status === 500 || s.code !== CODE.service_unavailable || !during(s))
    .map((s) => `${s.status} ${s.code ?? '(no problem body)'} at t+${(s.atMs / 1000).toFixed(1)}s on ${s.what}`);
}

/**
 * Whether a label the simulator made for a shipment is one the carrier bills. A carrier without
 * cancellation (DHL Express) bills only the labels it scans: a void there is done at once and leaves
 * the label unused, as the contract's Carriers section says, and a buy whose answer was lost is made
 * again (it cannot be cancelled, and is never handed over), leaving the first unused. At such a
 * carrier only the shipment's own label, not voided, is billed; elsewhere every label not cancelled.
 */
export function billedLabel(s: { carrier: string | null; status: string; trackingNumber: string | null }, label: { tracking_number: string }): boolean {
  return !NO_CANCELLATION.has(s.carrier ?? '') || (s.status !== 'voided' && label.tracking_number === s.trackingNumber);
}

async function simGet(simUrl: string, path: string): Promise<any[]> {
  const res = await request(`${simUrl}${path}`);
  return ((await res.body.json()) as { data: any[] }).data;
}

/** Rows still pending or voiding, for the "nothing stuck" wait. */
export async function unsettled(databaseUrl: string, accountIds: string[]): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`select count(*)::int as n from shipments where account_id = any($1) and status in ('pending', 'voiding')`, [accountIds]);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** The sweep's log line for the deliveries it started (workflows/sweep.ts). */
const SWEPT = 'started webhook deliveries that no announcement had started';

/** `<evt> → <we>` for each delivery the sweep started, read from the processes' logs in `dir`. */
export async function sweptDeliveries(dir: string): Promise<string[]> {
  const found = new Set<string>();
  for (const name of await readdir(dir).catch(() => [])) {
    for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n')) {
      if (!line.includes(SWEPT)) continue;
      for (const m of line.matchAll(/"event_id":"(evt_[0-9a-z]+)","endpoint_id":"(we_[0-9a-z]+)"/g)) found.add(`${m[1]} → ${m[2]}`);
    }
  }
  return [...found];
}

/** Stored events of the chaos accounts that the receiver has not acknowledged yet. */
export async function undelivered(databaseUrl: string, accountIds: string[], receiver: Receiver): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`select id from events where account_id = any($1) and livemode`, [accountIds]);
    return rows.map((r) => r.id as string).filter((id) => !receiver.acked.has(id));
  } finally {
    await client.end();
  }
}

/** The invariants, each a row of the table. */
export async function runChecks(w: World): Promise<Check[]> {
  const client = new pg.Client({ connectionString: w.databaseUrl });
  await client.connect();
  try {
    const shipments = (await client.query<ShipmentRow>(`select id, status, charged_to, account_id, carrier, tracking_number from shipments where account_id = any($1) and livemode`, [w.accountIds])).rows;
    const entries = (await client.query(`select shipment_id, kind from ledger_entries where account_id = any($1) and shipment_id is not null`, [w.accountIds])).rows as Array<{ shipment_id: string; kind: string }>;
    const ledger = (
      await client.query(
        `select a.id, a.balance, a.pending,
           coalesce(sum(case when e.kind in ('topup','refund') then e.amount when e.kind = 'capture' then -e.amount else 0 end), 0)::bigint as sum_balance,
           coalesce(sum(case when e.kind = 'hold' then e.amount when e.kind in ('capture','release') then -e.amount else 0 end), 0)::bigint as sum_pending
         from accounts a left join ledger_entries e on e.account_id = a.id where a.id = any($1) group by a.id`,
        [w.accountIds],
      )
    ).rows as Array<{ id: string; balance: string; pending: string; sum_balance: string; sum_pending: string }>;
    const events = (await client.query(`select id from events where account_id = any($1) and livemode`, [w.accountIds])).rows as Array<{ id: string }>;
    const labels = (await simGet(w.simUrl, '/_sim/purchases')) as Array<{ reference: string; cancelled: boolean; tracking_number: string; created_at: string }>;
    const cards = (await simGet(w.simUrl, '/_sim/card-charges')) as Array<{ reference: string; status: string }>;

    const byShipment = new Map(shipments.map((s) => [s.id, s]));
    const kinds = new Map<string, string[]>();
    for (const e of entries) kinds.set(e.shipment_id, [...(kinds.get(e.shipment_id) ?? []), e.kind]);
    const labelsOf = new Map<string, typeof labels>();
    for (const l of labels) if (byShipment.has(l.reference)) labelsOf.set(l.reference, [...(labelsOf.get(l.reference) ?? []), l]);
    const cardsOf = new Map<string, typeof cards>();
    for (const c of cards) if (byShipment.has(c.reference)) cardsOf.set(c.reference, [...(cardsOf.get(c.reference) ?? []), c]);
    const charged = (s: ShipmentRow) =>
      s.charged_to === 'card'
        ? (cardsOf.get(s.id) ?? []).some((c) => c.status === 'captured' || c.status === 'refunded')
        : (kinds.get(s.id) ?? []).includes('capture');
    const refunds = (s: ShipmentRow) =>
      s.charged_to === 'card'
        ? (cardsOf.get(s.id) ?? []).filter((c) => c.status === 'refunded').length
        : (kinds.get(s.id) ?? []).filter((k) => k === 'refund').length;
    // At a carrier without cancellation only the shipment's own label, not voided, is live (billedLabel).
    const billed = (s: ShipmentRow, l: (typeof labels)[number]) => billedLabel({ carrier: s.carrier, status: s.status, trackingNumber: s.tracking_number }, l);
    const live = (id: string) => (labelsOf.get(id) ?? []).filter((l) => !l.cancelled && billed(byShipment.get(id)!, l));
    const unused = [...labelsOf].flatMap(([id, ls]) => ls.filter((l) => !l.cancelled && !billed(byShipment.get(id)!, l))).length;
    const sample = (xs: string[]) => (xs.length ? `${xs.length}: ${xs.slice(0, 4).join('; ')}${xs.length > 4 ? '; …' : ''}` : '');

    const checks: Check[] = [];
    const add = (name: string, bad: string[], okDetail: string) => checks.push({ name, ok: bad.length === 0, detail: bad.length ? sample(bad) : okDetail });

    // 1. No double charge.
    const doubles: string[] = [];
    for (const s of shipments) {
      const captures = s.charged_to === 'card'
        ? (cardsOf.get(s.id) ?? []).filter((c) => c.status === 'captured' || c.status === 'refunded').length
        : (kinds.get(s.id) ?? []).filter((k) => k === 'capture').length;
      if (captures > 1) doubles.push(`${s.id} captured ${captures} times`);
    }
    for (const k of w.keys.filter((k) => k.kind === 'purchase')) {
      const bought = [...k.shipmentIds].filter((id) => byShipment.get(id) && charged(byShipment.get(id)!));
      if (bought.length > 1) doubles.push(`key ${k.key} charged ${bought.length} shipments`);
    }
    add('no double charge (one capture per shipment, one charged shipment per key)', doubles, `${shipments.filter(charged).length} charged shipments`);

    const books: string[] = [];
    for (const a of ledger) {
      if (Number(a.balance) !== Number(a.sum_balance) || Number(a.pending) !== Number(a.sum_pending)) {
        books.push(`${a.id}: balance ${a.balance} vs entries ${a.sum_balance}, pending ${a.pending} vs holds ${a.sum_pending}`);
      }
      if (Number(a.pending) !== 0) books.push(`${a.id}: ${a.pending} still pending`);
    }
    add('per account: balance = Σ entries, pending = open holds = 0', books, `${ledger.length} accounts`);

    // 2. No live label without a charge; never two live labels.
    const uncharged: string[] = [];
    for (const [id, ls] of labelsOf) {
      const s = byShipment.get(id)!;
      const liveOnes = live(id);
      if (liveOnes.length > 1) uncharged.push(`${id} (${s.status}) has ${liveOnes.length} live labels`);
      else if (liveOnes.length === 1 && (!charged(s) || refunds(s) > 0)) {
        // Every label the simulator made for it, with when: what tells a late commit from a second buy.
        const made = ls.map((l) => `${l.tracking_number} made ${l.created_at}${l.cancelled ? ', cancelled' : ''}`).join(', ');
        uncharged.push(`${id} is ${s.status}, ${charged(s) ? 'refunded' : 'not charged'}, label ${liveOnes[0].tracking_number} live at the carrier (its labels: ${made})`);
      }
    }
    add('no label live at the carrier without a charge (and never two)', uncharged, `${labels.filter((l) => byShipment.has(l.reference) && !l.cancelled).length} live labels`);

    // 3. No charge without a live label, unless voided: then refunded once and cancelled.
    const chargeOnly: string[] = [];
    for (const s of shipments.filter(charged)) {
      if (s.status === 'voided') {
        if (refunds(s) !== 1) chargeOnly.push(`${s.id} voided with ${refunds(s)} refunds`);
        if (live(s.id).length > 0) chargeOnly.push(`${s.id} voided but its label is live at the carrier`);
      } else if (live(s.id).length !== 1) chargeOnly.push(`${s.id} (${s.status}) charged with ${live(s.id).length} live labels`);
      else if (s.status === 'failed') chargeOnly.push(`${s.id} failed but charged`);
    }
    const voided = shipments.filter((s) => s.status === 'voided').length;
    add('no charge without a live label (voided: refunded once, cancelled)', chargeOnly, `${voided} voided${unused ? ` (${unused} labels left unused, unbilled, at a carrier without cancellation)` : ''}`);

    // 4. Nothing stuck.
    const stuck = shipments.filter((s) => s.status === 'pending' || s.status === 'voiding').map((s) => `${s.id} ${s.status}`);
    add('nothing left pending or voiding', stuck, `${shipments.length} shipments`);

    // 5. Every key ended purchased or failed with a problem answer, and the shipment agrees.
    const keys: string[] = [];
    for (const k of w.keys) {
      if (k.outcome === 'unfinished') keys.push(`${k.kind} key ${k.key} unfinished (last HTTP ${k.lastStatus ?? 'none'})`);
      if (k.kind === 'purchase' && k.outcome === 'purchased') {
        const final = [...k.shipmentIds].map((id) => byShipment.get(id)).find((s) => s && s.status !== 'failed');
        if (!final) keys.push(`key ${k.key} answered purchased but its shipment is not`);
      }
      if (k.kind === 'purchase' && k.outcome === 'failed') {
        const charged_ = [...k.shipmentIds].map((id) => byShipment.get(id)).filter((s) => s && charged(s));
        if (charged_.length) keys.push(`key ${k.key} answered failed (${k.problemCode}) but ${charged_[0]!.id} is charged`);
      }
    }
    const tally = (o: string) => w.keys.filter((k) => k.outcome === o).length;
    const codes = (o: string) => {
      const counts = new Map<string, number>();
      for (const k of w.keys.filter((k) => k.outcome === o)) counts.set(k.problemCode ?? 'none', (counts.get(k.problemCode ?? 'none') ?? 0) + 1);
      return counts.size ? ` (${[...counts].map(([c, n]) => `${c} ×${n}`).join(', ')})` : '';
    };
    add('every key ended purchased or failed with a problem answer', keys,
      `${tally('purchased')} purchased, ${tally('failed')} failed${codes('failed')}, ${tally('voided')} voided, ${tally('refused')} voids refused${codes('refused')}`);

    // 5b. A label the API reported purchased is voidable at once (fault 11).
    const refusedVoids = w.keys
      .filter((k) => k.kind === 'void' && k.outcome === 'refused' && k.problemCode !== CODE.label_already_scanned)
      .map((k) => `${k.key} on ${[...k.shipmentIds][0]}: ${k.problemCode}`);
    add('a void of a label reported purchased is carried out', refusedVoids, `${w.keys.filter((k) => k.kind === 'void').length} voids`);

    // 6. Every stored event delivered at least once with a stable id.
    const missing = events.filter((e) => !w.receiver.acked.has(e.id)).map((e) => `${e.id} never acknowledged`);
    const stored = new Set(events.map((e) => e.id));
    const strangers = [...w.receiver.acked.keys()].filter((id) => !stored.has(id)).map((id) => `${id} delivered but not stored`);
    add('every stored event delivered at least once, with a stable id', [...missing, ...strangers, ...w.receiver.unstable],
      `${events.length} events, ${[...w.receiver.acked.values()].reduce((a, b) => a + b, 0)} acknowledged deliveries, ${w.receiver.refused} answered 500`);

    // 6b. The sweep delivers an event whose announcement was lost (the customer gets it), but each
    // one it starts is a step that lost its announcement: a bug the run must show, not hide.
    add('every delivery started by the step that stored its event (none by the sweep)', w.sweptDeliveries.map((d) => `${d} started by the sweep`),
      `${w.sweptDeliveries.length} started by the sweep`);

    // 7. No 5xx except while an API process or a dependency was down.
    const bad5xx = unexpected5xx(w.seen, w.outages);
    add('no 5xx except while a process was down', bad5xx,
      `${w.seen.filter((s) => s.code === CODE.service_unavailable).length} service_unavailable during outages, ${w.seen.filter(isCarrierProblem).length} carrier problems`);

    // 8. Our processes ride out every fault that is not their own death: a restart of PostgreSQL or
    // Temporal, a carrier's errors. An exit nobody asked for drops every task the process was running.
    add('no API or worker exited by itself', w.crashes, `${w.crashes.length} exits besides the SIGKILLs of the schedule`);
    return checks;
  } finally {
    await client.end();
  }
}

export function formatTable(checks: Check[]): string {
  const width = Math.max(...checks.map((c) => c.name.length), 5);
  const lines = [`${'check'.padEnd(width)} | result | detail`, `${'-'.repeat(width)}-|--------|-------`];
  for (const c of checks) lines.push(`${c.name.padEnd(width)} | ${c.ok ? 'ok    ' : 'FAILED'} | ${c.detail}`);
  return lines.join('\n');
}
