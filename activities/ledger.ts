import { ApplicationFailure } from '@temporalio/common';
import { captureFunds, holdFunds, InsufficientFundsError, refundFunds, releaseFunds, type Db } from '../db/index.js';
import { FAILURE } from '../domain/index.js';

/** Money movements in the ledger; each is idempotent per (shipment, kind), so retries are safe. */
export function createLedgerActivities(deps: { db: Db }) {
  return {
    async holdFunds(p: { accountId: string; shipmentId: string; amount: number }): Promise<void> {
      try {
        await holdFunds(deps.db, p);
      } catch (err) {
        if (err instanceof InsufficientFundsError) {
          throw ApplicationFailure.nonRetryable('The balance does not cover the price of this label.', FAILURE.insufficientFunds);
        }
        throw err;
      }
    },
    captureFunds: (p: { accountId: string; shipmentId: string }) => captureFunds(deps.db, p),
    releaseFunds: (p: { accountId: string; shipmentId: string }) => releaseFunds(deps.db, p),
    refundFunds: (p: { accountId: string; shipmentId: string }) => refundFunds(deps.db, p),
  };
}
export type LedgerActivities = ReturnType<typeof createLedgerActivities>;
