import type { createClients, KeyOutcome } from './clients.js';
import type { ChaosOptions } from './options.js';
import type { Random } from './random.js';
import type { ChaosCurrency } from './routes.js';
import { purchasePlan, RETURN_CARRIERS, type TermsPools } from './terms.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The single purchases: spread over the fault window, at most `concurrency` at once, each under its
 * own Idempotency-Key. Some are bought abroad with customs or as return labels; some are followed by
 * their return label (`POST /shipments/{id}/return`, a key of its own); about one in ten of the
 * labels each key ends with is voided.
 */
export async function runPurchases(p: {
  o: Pick<ChaosOptions, 'purchases' | 'concurrency' | 'durationMs' | 'seed'>;
  clients: ReturnType<typeof createClients>;
  accounts: Array<{ key: string; currency: ChaosCurrency }>;
  pools: TermsPools;
  random: Random;
  now: () => number;
}): Promise<KeyOutcome[]> {
  const { o, clients, random } = p;
  const outcomes: KeyOutcome[] = [];
  let running = 0;
  const jobs: Promise<void>[] = [];
  for (let i = 0; i < o.purchases; i++) {
    await sleep(Math.max(0, (i * o.durationMs * 0.85) / o.purchases - p.now()));
    while (running >= o.concurrency) await sleep(50);
    const account = p.accounts[random.int(0, p.accounts.length - 1)];
    const key = `chaos-${o.seed}-${i}`;
    const plan = purchasePlan(i, account.currency, p.pools, random, key);
    const voidIt = random.chance(0.1);
    running++;
    jobs.push(
      (async () => {
        try {
          const bought = await clients.purchase(account.key, key, plan.body);
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
