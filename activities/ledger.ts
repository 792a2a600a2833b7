import { refundFunds, type Db } from '../db/index.js';

/** Money movements in the ledger; each is idempotent per (shipment, kind), so retries are safe. */
export function createLedgerActivities(deps: { db: Db }) {
  return {
    refundFunds: (p: { accountId: string; shipmentId: string }) => refundFunds(deps.db, p),
  };
}
export type LedgerActivities = ReturnType<typeof createLedgerActivities>;
