import { sql } from 'drizzle-orm';
import type { Db } from '../connection.js';

/** A key's allowance: `count` requests per `seconds`, as a token bucket that refills evenly. */
export interface RatePolicy {
  count: number;
  seconds: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Microseconds from the database's now to the key's theoretical arrival time (0 when the allowance is whole). */
  aheadUs: number;
}

/** The spacing of requests at the sustained rate, in whole microseconds (rounded down, so a full burst fits). */
export const emissionIntervalUs = (p: RatePolicy) => Math.max(1, Math.floor((p.seconds * 1_000_000) / p.count));

/**
 * GCRA in one statement, on the database's clock, so every API instance shares one allowance per key.
 *
 * `tat` is the theoretical arrival time: a request is admitted when max(tat, now) + I ≤ now + T, and
 * then tat moves to max(tat, now) + I. The row is locked (`for update`) before the clock is read, so
 * concurrent requests for one key are decided one after the other, each on the latest tat. A refused
 * request changes nothing.
 *
 * Returns undefined in one case only: the key's first-ever requests raced to insert its row and this
 * one lost with its verdict unknown. The row exists now; calling again decides it.
 */
async function decideOnce(db: Db, keyId: string, p: RatePolicy): Promise<RateDecision | undefined> {
  const i = emissionIntervalUs(p);
  const t = p.seconds * 1_000_000;
  const result = await db.execute<{ allowed: boolean | null; ahead_us: number | string | null }>(sql`
    with cur as materialized (
      select tat from rate_limits where key_id = ${keyId} for update
    ),
    clock as materialized (
      -- the clock is read after the row lock is held (the join pulls cur first)
      select cur.tat as old_tat, clock_timestamp() as now
      from (values (1)) as one (x) left join cur on true
    ),
    decided as materialized (
      select old_tat, now, next_tat, next_tat <= now + ${t}::float8 * interval '1 microsecond' as allowed
      from (
        select old_tat, now, greatest(coalesce(old_tat, now), now) + ${i}::float8 * interval '1 microsecond' as next_tat
        from clock
      ) as d
    ),
    saved as (
      insert into rate_limits as r (key_id, tat)
      select ${keyId}, next_tat from decided where allowed
      on conflict (key_id) do update
        set tat = greatest(r.tat, (select now from decided)) + ${i}::float8 * interval '1 microsecond'
        where greatest(r.tat, (select now from decided)) + ${i}::float8 * interval '1 microsecond'
          <= (select now from decided) + ${t}::float8 * interval '1 microsecond'
      returning r.tat
    )
    select
      case when (select tat from saved) is not null then true when old_tat is not null then false end as allowed,
      (extract(epoch from (coalesce((select tat from saved), old_tat) - now)) * 1000000)::bigint as ahead_us
    from decided
  `);
  const row = result.rows[0];
  if (!row || row.allowed === null || row.ahead_us === null) return undefined;
  return { allowed: row.allowed, aheadUs: Math.max(0, Number(row.ahead_us)) };
}

/** Takes one request from the key's allowance, or says it is spent. */
export async function takeRateLimitToken(db: Db, keyId: string, p: RatePolicy): Promise<RateDecision> {
  for (let attempt = 0; ; attempt++) {
    const decision = await decideOnce(db, keyId, p);
    if (decision) return decision;
    if (attempt >= 3) throw new Error('rate limit state could not be decided');
  }
}
