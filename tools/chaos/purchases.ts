import { request } from 'undici';
import { ALL_CARRIER_MODULES } from '../../carriers/index.js';
import type { createClients, KeyOutcome } from './clients.js';
import type { ChaosOptions } from './options.js';
import type { Random } from './random.js';
import type { ChaosCurrency } from './routes.js';
import { purchasePlan, RETURN_CARRIERS, type TermsPools } from './terms.js';
import { plannedBuyFault, purchaseMark, type BuyFaultKind, type PlannedBuyFault } from './schedule.js';

/** A purchase's outcome, with the carrier fault planted for its buy and whether the buy met it. */
export type PurchaseOutcome = KeyOutcome & { planted?: { kind: BuyFaultKind; met: boolean } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How many purchases are sent just before each outage (an API kill, the Temporal restart, the
 * PostgreSQL restart), so that its row measures more than the one or two a steady stream has in
 * flight at any moment (a purchase that meets nothing takes well under a second at the median):
 * at most one in twenty of the run's purchases per outage, so a small run keeps its planted faults.
 */
export const OUTAGE_PROBES = 6;
const probesPerOutage = (purchases: number) => Math.min(OUTAGE_PROBES, Math.floor(purchases / 20));
/** The probes go out over this much time before the outage, so that their first steps are still under way when it begins. */
export const OUTAGE_PROBE_LEAD_MS = 250;

/**
 * When each purchase is sent, from the start of the faults: spread evenly over 85% of the window,
 * except that the few purchases due next after each outage's lead begins go out over the
 * lead instead, evenly, in their order. `probes` are their indexes: no carrier fault is planted on
 * their buys, so that an outage is the one thing that touches them unless a worker kill does too.
 */
export function sendSchedule(purchases: number, durationMs: number, outagesAtMs: readonly number[]): { atMs: number[]; probes: Set<number> } {
  const atMs = Array.from({ length: purchases }, (_, i) => (i * durationMs * 0.85) / purchases);
  const probes = new Set<number>();
  const n = probesPerOutage(purchases);
  for (const outage of [...outagesAtMs].sort((a, b) => a - b)) {
    const leadFrom = outage - OUTAGE_PROBE_LEAD_MS;
    const first = atMs.findIndex((t, i) => t >= leadFrom && !probes.has(i));
    if (first < 0) continue;
    for (let k = 0; k < n && first + k < purchases; k++) {
      atMs[first + k] = Math.max(atMs[first + k - 1] ?? 0, leadFrom + (k * OUTAGE_PROBE_LEAD_MS) / n);
      probes.add(first + k);
    }
  }
  return { atMs, probes };
}

/**
 * The single purchases: sent as sendSchedule says, at most `concurrency` at once, each under its
 * own Idempotency-Key. Some are bought abroad with customs or as return labels; some are followed by
 * their return label (`POST /shipments/{id}/return`, a key of its own); about one in ten of the
 * labels each key ends with is voided.
 */
export async function runPurchases(p: {
  o: Pick<ChaosOptions, 'purchases' | 'concurrency' | 'durationMs' | 'seed'>;
  /** When the API kill and the Temporal and PostgreSQL restarts begin, from the start of the faults. */
  outagesAtMs: readonly number[];
  clients: ReturnType<typeof createClients>;
  accounts: Array<{ key: string; currency: ChaosCurrency }>;
  pools: TermsPools;
  random: Random;
  now: () => number;
  simUrl: string;
}): Promise<PurchaseOutcome[]> {
  const { o, clients, random } = p;
  const outcomes: PurchaseOutcome[] = [];
  let running = 0;
  const jobs: Promise<void>[] = [];
  const schedule = sendSchedule(o.purchases, o.durationMs, p.outagesAtMs);
  for (let i = 0; i < o.purchases; i++) {
    await sleep(Math.max(0, schedule.atMs[i] - p.now()));
    while (running >= o.concurrency) await sleep(50);
    const account = p.accounts[random.int(0, p.accounts.length - 1)];
    const key = `chaos-${o.seed}-${i}`;
    const plan = purchasePlan(i, account.currency, p.pools, random, key);
    const voidIt = random.chance(0.1);
    // Drawn for every purchase, so that a seed plants the same faults on the others.
    const drawn = plannedBuyFault(random);
    const planted = schedule.probes.has(i) ? null : drawn;
    const mark = purchaseMark(plan.kind === 'return' ? 'Customer' : 'Recipient', i);
    running++;
    jobs.push(
      (async () => {
        try {
          if (planted) await armFault(p.simUrl, planted, String(plan.body.service), mark);
          const bought: PurchaseOutcome & { shipment: any } = await clients.purchase(account.key, key, plan.body);
          if (planted) bought.planted = { kind: planted.kind, met: await disarmFault(p.simUrl, mark) };
          outcomes.push(bought);
          let last = bought;
          if (plan.returnAfter && bought.outcome === 'purchased' && RETURN_CARRIERS.has(bought.shipment?.service?.carrier)) {
            last = await clients.purchase(account.key, `return-${key}`, {}, `/api/v1/shipments/${bought.shipment.id}/return`);
            outcomes.push(last);
          }
          if (voidIt && last.outcome === 'purchased' && last.shipment) {
            outcomes.push(await clients.voidLabel(account.key, `void-${last.key}`, last.shipment.id));
          }
        } finally {
          running--;
        }
      })(),
    );
  }
  await Promise.all(jobs);
  return outcomes;
}

/** Plants the purchase's fault at its service's carrier, for one buy whose request carries `mark`. */
async function armFault(simUrl: string, planted: PlannedBuyFault, service: string, mark: string): Promise<void> {
  const carrier = ALL_CARRIER_MODULES.find((m) => m.definition.services.some((s) => s.code === service))?.definition.code;
  if (!carrier) throw new Error(`no carrier sells ${service}`);
  const body = { ...planted.fault, carrier, match: mark, times: 1 };
  const res = await request(`${simUrl}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.statusCode !== 201) throw new Error(`fault refused: ${await res.body.text()}`);
  await res.body.dump();
}

/** Whether the buy met its planted fault (it is used up); one it never met is cleared. */
async function disarmFault(simUrl: string, mark: string): Promise<boolean> {
  const res = await request(`${simUrl}/_sim/faults`);
  const armed = ((await res.body.json()) as { data: Array<{ match: string | null }> }).data.some((f) => f.match === mark);
  if (armed) await request(`${simUrl}/_sim/faults?match=${encodeURIComponent(mark)}`, { method: 'DELETE' }).then((r) => r.body.dump());
  return !armed;
}
