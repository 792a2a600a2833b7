import { eq, sql } from 'drizzle-orm';
import { PgDialect, type PreparedQueryConfig } from 'drizzle-orm/pg-core';
import type { QueryResult } from 'pg';
import type { Db } from '../connection.js';
import { rateLimits } from '../schema.js';
import { preparedOn } from './prepared.js';

/** An allowance: at most `count` requests admitted within any `seconds`. */
export interface RatePolicy {
  count: number;
  seconds: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Requests admitted within the window that ends now, this one included when admitted. */
  used: number;
  /** Microseconds until the oldest of them leaves the window, freeing a place (0 when none). */
  untilSlotUs: number;
  /** Microseconds until the newest leaves it, when the allowance is whole again (0 when none). */
  untilWholeUs: number;
}

type DecisionRow = { allowed: boolean | null; used: number | string; until_slot_us: number | string | null; until_whole_us: number | string | null };

const KEY_ID = sql.placeholder('keyId');
const COUNT = sql.placeholder('count');
const WINDOW = sql`${sql.placeholder('windowUs')}::float8 * interval '1 microsecond'`;

/**
 * The statement, built once and prepared on each connection: every authenticated request runs it,
 * and PostgreSQL would otherwise parse and plan its CTEs on every call. The policy comes as values.
 */
const DECIDE = new PgDialect().sqlToQuery(sql`
    with cur as materialized (
      select admitted from rate_limits where key_id = ${KEY_ID} for update
    ),
    clock as materialized (
      -- the clock is read after the row lock is held (the join pulls cur first)
      select cur.admitted as old, clock_timestamp() as now
      from (values (1)) as one (x) left join cur on true
    ),
    decided as materialized (
      select old, now, recent, cardinality(recent) < ${COUNT} as allowed
      from (
        select old, now, array(select t from unnest(coalesce(old, '{}'::timestamptz[])) as t where t > now - ${WINDOW} order by t) as recent
        from clock
      ) as d
    ),
    saved as (
      insert into rate_limits as r (key_id, tat, admitted)
      select ${KEY_ID}, now, recent || now from decided where allowed
      on conflict (key_id) do update
        set tat = (select now from decided),
            admitted = array(select t from unnest(r.admitted) as t where t > (select now from decided) - ${WINDOW} order by t) || (select now from decided)
        where cardinality(array(select t from unnest(r.admitted) as t where t > (select now from decided) - ${WINDOW})) < ${COUNT}
      returning r.admitted
    ),
    outcome as (
      select old, now, (select admitted from saved) as saved_admitted, recent from decided
    )
    select
      case when saved_admitted is not null then true when old is not null then false end as allowed,
      cardinality(coalesce(saved_admitted, recent)) as used,
      (extract(epoch from (coalesce(saved_admitted, recent))[1] + ${WINDOW} - now) * 1000000)::bigint as until_slot_us,
      (extract(epoch from (coalesce(saved_admitted, recent))[cardinality(coalesce(saved_admitted, recent))] + ${WINDOW} - now) * 1000000)::bigint as until_whole_us
    from outcome
  `);
const decide = preparedOn((db) =>
  db._.session.prepareQuery<PreparedQueryConfig & { execute: QueryResult<DecisionRow> }>(DECIDE, undefined, 'rate_limit_decide', false),
);

/**
 * A sliding window in one statement, on the database's clock, so every API instance shares one
 * allowance per key: the row keeps the times of the requests admitted within the last window, and
 * a request is admitted while fewer than `count` are. So no window of `seconds`, wherever it
 * starts, ever holds more than `count` admitted requests (a GCRA bucket would let a full burst
 * and then the refill through, up to twice the allowance in one window), and a refusal knows to
 * the microsecond when a place frees up.
 *
 * The row is locked (`for update`) before the clock is read, so concurrent requests for one key
 * are decided one after the other, each on the latest times. A refused request changes nothing.
 *
 * Returns undefined in one case only: the key's first-ever requests raced to insert its row and this
 * one lost with its verdict unknown. The row exists now; calling again decides it.
 */
async function decideOnce(db: Db, keyId: string, p: RatePolicy): Promise<RateDecision | undefined> {
  const result = await decide(db).execute({ keyId, count: p.count, windowUs: p.seconds * 1_000_000 });
  const row = result.rows[0];
  if (!row || row.allowed === null) return undefined;
  return {
    allowed: row.allowed,
    used: Number(row.used),
    untilSlotUs: Math.max(0, Number(row.until_slot_us ?? 0)),
    untilWholeUs: Math.max(0, Number(row.until_whole_us ?? 0)),
  };
}

/** Takes one request from the key's allowance, or says it is spent. */
export async function takeRateLimitToken(db: Db, keyId: string, p: RatePolicy): Promise<RateDecision> {
  for (let attempt = 0; ; attempt++) {
    const decision = await decideOnce(db, keyId, p);
    if (decision) return decision;
    if (attempt >= 3) throw new Error('rate limit state could not be decided');
  }
}

/**
 * The times of the requests the key's row holds, oldest first: those admitted within the window as of
 * its latest decision (none for a key never asked). For the bench and the tests reading an allowance.
 */
export async function admittedWithinWindow(db: Db, keyId: string): Promise<Date[]> {
  const rows = await db.select({ admitted: rateLimits.admitted }).from(rateLimits).where(eq(rateLimits.keyId, keyId));
  return rows[0]?.admitted ?? [];
}
