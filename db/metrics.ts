import { sql } from 'drizzle-orm';
import { Gauge, type Registry } from 'prom-client';
import type { Db } from './connection.js';

/**
 * `shipping_ledger_held_funds{currency}`: funds held for live purchases under way (neither captured
 * nor released), read from the database at scrape time. A fleet-wide figure: every process that
 * serves it (each worker, and the API's /metrics/fleet) reports the same number, so aggregate it
 * with max, not sum, or scrape one target.
 */
export function ledgerHoldsGauge(registry: Registry, db: Db): Gauge<'currency'> {
  return new Gauge({
    name: 'shipping_ledger_held_funds',
    help: "Funds held for live purchases under way (neither captured nor released), in the currency's major unit; the fleet's, from the database.",
    labelNames: ['currency'] as const,
    registers: [registry],
    async collect() {
      const result = await db.execute(sql`select currency, coalesce(sum(pending), 0)::bigint as pending from accounts group by currency`);
      this.reset();
      for (const row of result.rows as { currency: string; pending: string | number }[]) this.set({ currency: row.currency }, Number(row.pending) / 100);
    },
  });
}
