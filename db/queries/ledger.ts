import { and, eq, sql } from 'drizzle-orm';
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

async function entriesOf(tx: Tx, shipmentId: string): Promise<Map<LedgerKind, number>> {
  const rows = await tx
    .select({ kind: ledgerEntries.kind, amount: ledgerEntries.amount })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.shipmentId, shipmentId));
  return new Map(rows.map((r) => [r.kind as LedgerKind, r.amount]));
}

async function move(tx: Tx, account: AccountRow, shipmentId: string | null, kind: LedgerKind, amount: number) {
  await tx.insert(ledgerEntries).values({ accountId: account.id, shipmentId, kind, amount });
  const balance = { topup: amount, refund: amount, capture: -amount, hold: 0, release: 0 }[kind];
  const pending = { hold: amount, capture: -amount, release: -amount, topup: 0, refund: 0 }[kind];
  const [updated] = await tx
    .update(accounts)
    .set({ balance: sql`${accounts.balance} + ${balance}`, pending: sql`${accounts.pending} + ${pending}` })
    .where(eq(accounts.id, account.id))
    .returning();
  return updated;
}

/** Reserves the price; refuses when the wallet or credit line cannot cover it. Idempotent. */
export async function holdFunds(db: Db, p: { accountId: string; shipmentId: string; amount: number }): Promise<void> {
  await db.transaction((tx) => holdIn(tx, p));
}

/** `holdFunds` inside the caller's transaction. */
export async function holdIn(tx: Tx, p: { accountId: string; shipmentId: string; amount: number }): Promise<void> {
  const account = await lockAccount(tx, p.accountId);
  const existing = await entriesOf(tx, p.shipmentId);
  if (existing.has('hold')) return;
  const available = availableOf(account);
  if (available !== null && available < p.amount) {
    throw new InsufficientFundsError(`available ${available} is below the price ${p.amount}`);
  }
  await move(tx, account, p.shipmentId, 'hold', p.amount);
}

export interface CaptureResult {
  captured: boolean;
  availableBefore: number | null;
  availableAfter: number | null;
  lowBalanceThreshold: number | null;
}

/** Turns the hold into a charge. Idempotent: a second call captures nothing. */
export async function captureFunds(db: Db, p: { accountId: string; shipmentId: string }): Promise<CaptureResult> {
  return db.transaction((tx) => captureIn(tx, p));
}

/** `captureFunds` inside the caller's transaction. */
export async function captureIn(tx: Tx, p: { accountId: string; shipmentId: string }): Promise<CaptureResult> {
  const account = await lockAccount(tx, p.accountId);
  const existing = await entriesOf(tx, p.shipmentId);
  const held = existing.get('hold');
  const none = { captured: false, availableBefore: null, availableAfter: null, lowBalanceThreshold: null };
  if (held === undefined || existing.has('capture') || existing.has('release')) return none;
  const updated = await move(tx, account, p.shipmentId, 'capture', held);
  return {
    captured: true,
    // The hold already counted against the available amount; what fell is the balance after release.
    availableBefore: availableOf({ ...account, pending: account.pending - held }),
    availableAfter: availableOf(updated),
    lowBalanceThreshold: account.lowBalanceThreshold,
  };
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
  await move(tx, account, p.shipmentId, 'release', held);
  return true;
}

/** Reverses a captured charge. Idempotent. */
export async function refundFunds(db: Db, p: { accountId: string; shipmentId: string }): Promise<boolean> {
  return db.transaction(async (tx) => {
    const account = await lockAccount(tx, p.accountId);
    const existing = await entriesOf(tx, p.shipmentId);
    const captured = existing.get('capture');
    if (captured === undefined || existing.has('refund')) return false;
    await move(tx, account, p.shipmentId, 'refund', captured);
    return true;
  });
}

export async function topUp(db: Db, p: { accountId: string; amount: number }): Promise<AccountRow> {
  return db.transaction(async (tx) => {
    const account = await lockAccount(tx, p.accountId);
    return move(tx, account, null, 'topup', p.amount);
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
