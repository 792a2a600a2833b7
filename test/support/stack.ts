/**
 * A whole service for one test file on the run's shared PostgreSQL, Temporal and simulator (the
 * global setup's, test/setup/stack.ts): tools/stack/ with the run's infrastructure, and the checks
 * tests make of it.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { inject } from 'vitest';
import { shipmentWorkflowId } from '../../contract/index.js';
import { checkLedger, insertShipment } from '../../db/index.js';
import { makeId } from '../../domain/index.js';
import type { Config } from '../../config/index.js';
import { address, call, parcel, startLocalStack, type Infra, type LocalStack, type LocalStackOptions } from '../../tools/stack/index.js';
import { eventually } from './sim.js';

export { address, call, createAccount, parcel, type Answer, type Infra, type TestAccount } from '../../tools/stack/index.js';

export type TestStack = LocalStack;

/** The test file's stack: its own API on a free port and its own workers on a private task-queue prefix. */
export async function startTestStack(overrides: Partial<Config> = {}, options: LocalStackOptions & { infra?: Infra } = {}): Promise<TestStack> {
  const infra = options.infra ?? {
    databaseUrl: inject('databaseUrl'),
    temporalAddress: inject('temporalAddress'),
    carrierSimUrl: inject('carrierSimUrl'),
    workflowBundlePath: inject('workflowBundlePath'),
  };
  return startLocalStack(infra, overrides, options);
}

/** The shipment once its status reads `status`, read with `key`. */
export async function settledTo(stack: { url: string }, key: string, shipmentId: string, status: string, ms = 60_000) {
  return eventually(async () => {
    const s = await call(stack, 'GET', `/api/v1/shipments/${shipmentId}`, { key });
    return s.body.status === status ? s.body : undefined;
  }, ms, `${shipmentId} to be settled to ${status}`);
}

/**
 * A purchase that must end purchased: its 201, or the 202 that a busy machine answers under a short
 * purchase wait (PURCHASE_WAIT_MS), followed until the shipment reads purchased.
 */
export async function purchaseToEnd(stack: { url: string }, key: string, body: Record<string, unknown>, ms = 60_000) {
  const a = await call(stack, 'POST', '/api/v1/shipments', { key, body });
  if (a.status !== 201 && a.status !== 202) throw new Error(`the purchase answered ${a.status}: ${a.text}`);
  return settledTo(stack, key, a.body.id, 'purchased', ms);
}

/** The ledger invariant after every scenario: balance = Σ entries, pending = open holds. */
export async function expectLedgerConsistent(stack: TestStack, accountId: string) {
  const { account, entriesBalance, entriesPending } = await checkLedger(stack.database.db, accountId);
  if (account.balance !== entriesBalance || account.pending !== entriesPending) {
    throw new Error(
      `ledger invariant broken for ${accountId}: balance ${account.balance} vs entries ${entriesBalance}, pending ${account.pending} vs holds ${entriesPending}`,
    );
  }
  return account;
}

/**
 * A pending shipment row of a live wallet purchase of acme_ground, as the API records a purchase
 * request, with no workflow started: what an API that stopped right after recording it leaves.
 * Such a row dated more than a few seconds back is failed by any test file's sweep Schedule (they
 * share the database and run every second): date it ahead of the clock to keep it from them.
 */
export async function insertPendingShipment(stack: TestStack, accountId: string, createdAt = new Date()): Promise<string> {
  const id = makeId('shp', createdAt.getTime(), randomBytes(16));
  await insertShipment(stack.database.db, {
    id,
    accountId,
    livemode: true,
    status: 'pending',
    serviceCode: 'acme_ground',
    fromAddress: address(),
    toAddress: address(),
    parcel: parcel(),
    currency: 'GBP',
    chargedTo: 'wallet',
    createdAt,
    updatedAt: createdAt,
  });
  return id;
}

/**
 * Terminates a shipment's run once it has started `activity` (the carrier has the request), as an
 * operator would in the Temporal UI; returns the terminated run's id.
 */
export async function terminateDuring(stack: Pick<TestStack, 'temporal'>, shipmentId: string, activity: string): Promise<string> {
  const handle = stack.temporal.workflow.getHandle(shipmentWorkflowId(shipmentId));
  const runId = await eventually(async () => {
    const d = await handle.describe();
    return d.raw.pendingActivities?.some((a) => a.activityType?.name === activity) ? d.runId : undefined;
  }, 60_000, `${shipmentId} to call ${activity}`);
  await handle.terminate('terminated mid-way, as an operator would in the UI');
  return runId;
}

/**
 * Runs `perform` (a PostgreSQL expression) inside this account's price hold, from a trigger on the
 * row update that sets the shipment's price; `drop()` removes the trigger.
 */
export async function onPriceHold(stack: TestStack, acctId: string, name: string, perform: string): Promise<{ drop(): Promise<void> }> {
  const db = stack.database.db;
  const fn = `${name}_${acctId.toLowerCase()}`;
  await db.execute(
    sql.raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin if new.account_id = '${acctId}' and new.price_gross is not null and old.price_gross is null then perform ${perform}; end if; return new; end $$`),
  );
  await db.execute(sql.raw(`create trigger ${fn} before update on shipments for each row execute function ${fn}()`));
  return { drop: async () => void (await db.execute(sql.raw(`drop trigger if exists ${fn} on shipments; drop function if exists ${fn}()`))) };
}
