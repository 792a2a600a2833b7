import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../connection.js';
import { accounts, ledgerEntries, type AccountRow } from '../schema.js';
import { availableOf, CODE } from '../../domain/index.js';

/**
 * The ledger: one row per money movement, unique per (shipment, kind), so a retried activity can
 * never move money twice. The account's `balance` and `pending` change in the same transaction as
 * the entry, under the account's row lock. Effects: topup +balance; hold +pending;
 * capture −balance −pending; release −pending; refund +balance.
 */
export type LedgerKind = 'topup' | 'hold' | 'capture' | 'release' | 'refund';

export class InsufficientFundsError extends Error {
  readonly code = CODE.insufficient_funds;
}


async function lockAccount(tx: Tx, accountId: string): Promise<AccountRow> {
  const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for('update');
  if (!account) throw new Error(`account ${accountId} not found`);
  return account;
}

/** A shipment's ledger entries by kind (unique per shipment and kind). */
export type ShipmentEntries = Map<LedgerKind, number>;

async function entriesOf(tx: Tx, shipmentId: string): Promise<ShipmentEntries> {
  const rows = await tx
    .select({ kind: ledgerEntries.kind, amount: ledgerEntries.amount })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.shipmentId, shipmentId));
  return new Map(rows.map((r) => [r.kind as LedgerKind, r.amount]));
}

/**
 * A column that reads a shipment's entries beside a row lock taken in the same statement, so locking
 * and reading are one round trip: `[{ kind, amount }]`, as `entriesFrom` takes it.
 */
export function entriesColumn(shipmentId: string) {
  return sql<Array<{ kind: string; amount: number }>>`coalesce((select json_agg(json_build_object('kind', ${ledgerEntries.kind}, 'amount', ${ledgerEntries.amount})) from ${ledgerEntries} where ${ledgerEntries.shipmentId} = ${shipmentId}), '[]'::json)`;
}

export function entriesFrom(rows: Array<{ kind: string; amount: number }>): ShipmentEntries {
  return new Map(rows.map((r) => [r.kind as LedgerKind, Number(r.amount)]));
}

export interface Move {
  kind: LedgerKind;
  amount: number;
}

const BALANCE_EFFECT: Record<LedgerKind, 1 | 0 | -1> = { topup: 1, refund: 1, capture: -1, hold: 0, release: 0 };
const PENDING_EFFECT: Record<LedgerKind, 1 | 0 | -1> = { hold: 1, capture: -1, release: -1, topup: 0, refund: 0 };

/** The account as a move leaves it (what its update returns). */
export function afterMove(account: AccountRow, m: Move): AccountRow {
  return { ...account, balance: account.balance + BALANCE_EFFECT[m.kind] * m.amount, pending: account.pending + PENDING_EFFECT[m.kind] * m.amount };
}

/**
 * The writes of a move: its entry and the account's update. Run as the sub-statements of one
 * statement (`oneStatement`), beside the caller's other writes, they are one round trip.
 */
export function moveWrites(accountId: string, shipmentId: string | null, m: Move): SQL[] {
  const balance = BALANCE_EFFECT[m.kind] * m.amount;
  const pending = PENDING_EFFECT[m.kind] * m.amount;
  return [
    sql`insert into ${ledgerEntries} (account_id, shipment_id, kind, amount) values (${accountId}, ${shipmentId}, ${m.kind}, ${m.amount})`,
    sql`update ${accounts} set balance = balance + ${balance}, pending = pending + ${pending} where id = ${accountId}`,
  ];
}

/**
 * Runs writes as one statement (each a data-modifying sub-statement of a WITH), so one round trip.
 * They share one snapshot and see none of each other's changes: each must touch its own rows.
 */
export async function oneStatement(tx: Tx | Db, writes: SQL[]): Promise<void> {
  if (writes.length === 0) return;
  const first = writes.slice(0, -1);
  const last = writes[writes.length - 1]!;
  if (first.length === 0) {
    await tx.execute(last);
    return;
  }
  const ctes = sql.join(
    first.map((w, i) => sql`${sql.raw(`w${i}`)} as (${w})`),
    sql`, `,
  );
  await tx.execute(sql`with ${ctes} ${last}`);
}

async function move(tx: Tx, account: AccountRow, shipmentId: string | null, m: Move): Promise<AccountRow> {
  await oneStatement(tx, moveWrites(account.id, shipmentId, m));
  return afterMove(account, m);
}

/** The hold a purchase needs, or none when it is already held; refuses what the account cannot cover. */
export function planHold(account: AccountRow, existing: ShipmentEntries, amount: number): Move | null {
  if (existing.has('hold')) return null;
  const available = availableOf(account);
  if (available !== null && available < amount) {
    throw new InsufficientFundsError(`available ${available} is below the price ${amount}`);
  }
  return { kind: 'hold', amount };
}

/** Reserves the price; refuses when the wallet or credit line cannot cover it. Idempotent. */
export async function holdFunds(db: Db, p: { accountId: string; shipmentId: string; amount: number }): Promise<void> {
  await db.transaction((tx) => holdIn(tx, p));
}

/** `holdFunds` inside the caller's transaction. */
export async function holdIn(tx: Tx, p: { accountId: string; shipmentId: string; amount: number }): Promise<void> {
  const account = await lockAccount(tx, p.accountId);
  const hold = planHold(account, await entriesOf(tx, p.shipmentId), p.amount);
  if (hold) await move(tx, account, p.shipmentId, hold);
}

export interface CaptureResult {
  captured: boolean;
  /** Settled balance (credit included, holds aside) around the capture; the names are in recorded histories. */
  availableBefore: number | null;
  availableAfter: number | null;
  lowBalanceThreshold: number | null;
}

const NO_CAPTURE: CaptureResult = { captured: false, availableBefore: null, availableAfter: null, lowBalanceThreshold: null };

/** The capture of a shipment's hold (none once captured or released), and what it does to the account. */
export function planCapture(account: AccountRow, existing: ShipmentEntries): { move: Move; after: AccountRow; result: CaptureResult } | null {
  const held = existing.get('hold');
  if (held === undefined || existing.has('capture') || existing.has('release')) return null;
  const m: Move = { kind: 'capture', amount: held };
  const after = afterMove(account, m);
  return {
    move: m,
    after,
    result: {
      captured: true,
      // What the charge itself moves: the settled balance (credit included) before and after it,
      // with every hold left aside. Counting the holds of other purchases in flight put "before"
      // below the threshold already, so overlapping purchases crossed it with no event at all.
      availableBefore: availableOf({ ...account, pending: 0 }),
      availableAfter: availableOf({ ...after, pending: 0 }),
      lowBalanceThreshold: account.lowBalanceThreshold,
    },
  };
}

/** Turns the hold into a charge. Idempotent: a second call captures nothing. */
export async function captureFunds(db: Db, p: { accountId: string; shipmentId: string }): Promise<CaptureResult> {
  return db.transaction((tx) => captureIn(tx, p));
}

/** `captureFunds` inside the caller's transaction. */
export async function captureIn(tx: Tx, p: { accountId: string; shipmentId: string }): Promise<CaptureResult> {
  const account = await lockAccount(tx, p.accountId);
  const capture = planCapture(account, await entriesOf(tx, p.shipmentId));
  if (!capture) return NO_CAPTURE;
  await move(tx, account, p.shipmentId, capture.move);
  return capture.result;
}

/** The charge crossed the account's low-balance threshold downwards (at most once per crossing). */
export function crossedLowBalance(c: CaptureResult): boolean {
  const t = c.lowBalanceThreshold;
  return c.captured && t !== null && c.availableBefore !== null && c.availableAfter !== null && c.availableBefore >= t && c.availableAfter < t;
}

/** Gives the hold back. Idempotent, and a no-op once captured. */
export async function releaseFunds(db: Db, p: { accountId: string; shipmentId: string }): Promise<boolean> {
  return db.transaction((tx) => releaseIn(tx, p));
}

/** `releaseFunds` inside the caller's transaction. */
export async function releaseIn(tx: Tx, p: { accountId: string; shipmentId: string }): Promise<boolean> {
  const account = await lockAccount(tx, p.accountId);
  const existing = await entriesOf(tx, p.shipmentId);
  const held = existing.get('hold');
  if (held === undefined || existing.has('capture') || existing.has('release')) return false;
  await move(tx, account, p.shipmentId, { kind: 'release', amount: held });
  return true;
}

/** Reverses a captured charge. Idempotent. */
export async function refundFunds(db: Db, p: { accountId: string; shipmentId: string }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const account = await lockAccount(tx, p.accountId);
    const existing = await entriesOf(tx, p.shipmentId);
    const captured = existing.get('capture');
    if (captured === undefined || existing.has('refund')) return false;
    await move(tx, account, p.shipmentId, { kind: 'refund', amount: captured });
    return true;
  });
}

export async function topUp(db: Db, p: { accountId: string; amount: number }): Promise<AccountRow> {
  return db.transaction(async (tx) => {
    const account = await lockAccount(tx, p.accountId);
    return move(tx, account, null, { kind: 'topup', amount: p.amount });
  });
}

/** The invariant the tests hold after every scenario: balance = Σ entries, pending = open holds. */
export async function checkLedger(db: Db, accountId: string) {
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  const [sums] = await db
    .select({
      balance: sql<number>`coalesce(sum(case when ${ledgerEntries.kind} in ('topup','refund') then ${ledgerEntries.amount} when ${ledgerEntries.kind} = 'capture' then -${ledgerEntries.amount} else 0 end), 0)::bigint`,
      pending: sql<number>`coalesce(sum(case when ${ledgerEntries.kind} = 'hold' then ${ledgerEntries.amount} when ${ledgerEntries.kind} in ('capture','release') then -${ledgerEntries.amount} else 0 end), 0)::bigint`,
    })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.accountId, accountId)));
  return { account, entriesBalance: Number(sums.balance), entriesPending: Number(sums.pending) };
}

export async function ledgerEntriesOf(db: Db, accountId: string) {
  return db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, accountId)).orderBy(ledgerEntries.id);
}
