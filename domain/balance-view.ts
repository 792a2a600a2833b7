import { formatAmount } from './money.js';

export interface BalanceRecord {
  fundingSource: string;
  currency: string;
  balance: number;
  pending: number;
  creditLimit: number | null;
  lowBalanceThreshold: number | null;
}

const fmt = (v: number | null) => (v === null ? null : formatAmount(v));

/** Spendable now: the wallet less holds, the credit still unused, or null for a card. */
export function availableOf(a: Pick<BalanceRecord, 'fundingSource' | 'balance' | 'pending' | 'creditLimit'>): number | null {
  switch (a.fundingSource) {
    case 'wallet':
      return a.balance - a.pending;
    case 'credit_line':
      return (a.creditLimit ?? 0) + a.balance - a.pending;
    default:
      return null;
  }
}

/**
 * The balance (contract: Resources, Balance): the wallet less holds, or the credit still unused;
 * null for a card. A sandbox key moves no money, so it sees the same figures untouched.
 */
export function balanceToJson(a: BalanceRecord, livemode: boolean) {
  const available = availableOf(a);
  return {
    object: 'balance',
    livemode,
    funding_source: a.fundingSource,
    currency: a.currency,
    available: fmt(available),
    pending: formatAmount(a.pending),
    credit_limit: fmt(a.creditLimit),
    low_balance_threshold: fmt(a.lowBalanceThreshold),
  };
}
