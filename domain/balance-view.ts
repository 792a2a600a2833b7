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

/**
 * The balance (contract: Resources, Balance): the wallet less holds, or the credit still unused;
 * null for a card. A sandbox key moves no money, so it sees the same figures untouched.
 */
export function balanceToJson(a: BalanceRecord, livemode: boolean) {
  const available =
    a.fundingSource === 'wallet'
      ? a.balance - a.pending
      : a.fundingSource === 'credit_line'
        ? (a.creditLimit ?? 0) + a.balance - a.pending
        : null;
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
