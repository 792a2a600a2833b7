import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../../db/index.js';
import { carrierSendLedger } from '../../workers/activities.js';

/**
 * The ledger of a purchase's sends at a carrier without idempotency keys (db/queries/carrier-sends.ts),
 * as two workers of the fleet see it, each with its own pool: what a retried buy learns of the
 * attempts before it, and how it keeps them from sending after it has started.
 */
const pools = [openDatabase(inject('databaseUrl'), { max: 2 }), openDatabase(inject('databaseUrl'), { max: 2 })];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});
const ledgers = pools.map((p) => carrierSendLedger(p.db));
const reference = () => `shp_test_${randomBytes(8).toString('hex')}`;

describe('the ledger of a purchase’s sends', () => {
  it('tells a later attempt that an earlier one, whose worker was lost before it booked, sent nothing', async () => {
    const ref = reference();
    const first = ledgers[0](ref, 101);
    expect(await first.start()).toEqual({ sentMsAgo: null, superseded: false });
    // The first worker dies here; the next attempt runs on the other.
    expect(await ledgers[1](ref, 201).start(new Date())).toEqual({ sentMsAgo: null, superseded: false });
  });

  it('tells a later attempt how long ago an earlier one sent, on the database’s clock', async () => {
    const ref = reference();
    const first = ledgers[0](ref, 101);
    await first.start();
    expect(await first.markSend()).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    const { sentMsAgo, superseded } = await ledgers[1](ref, 201).start(new Date());
    expect(superseded).toBe(false);
    expect(sentMsAgo).toBeGreaterThanOrEqual(250);
    expect(sentMsAgo).toBeLessThan(5_000);
  });

  it('keeps an earlier attempt from sending once a later one has started: exactly one of the two may send', async () => {
    const ref = reference();
    const first = ledgers[0](ref, 101);
    await first.start();
    // A worker thought lost but still running: the later attempt starts before it marks its send.
    expect((await ledgers[1](ref, 201).start(new Date())).sentMsAgo).toBeNull();
    expect(await first.markSend()).toBe(false);
    // And a run of the earlier attempt that starts only now is told it is too late.
    expect((await ledgers[0](ref, 102).start()).superseded).toBe(true);
    expect(await ledgers[1](ref, 201).markSend()).toBe(true);
  });

  it('counts an earlier attempt it never saw (code that kept no ledger) as sent when the workflow gave it up', async () => {
    const ref = reference();
    const givenUp = new Date(Date.now() - 2_000);
    const { sentMsAgo } = await ledgers[0](ref, 201).start(givenUp);
    expect(sentMsAgo).toBeGreaterThanOrEqual(1_900);
    expect(sentMsAgo).toBeLessThan(10_000);
    // A first attempt (nothing given up) starts a purchase's ledger with no send.
    expect((await ledgers[0](reference(), 101).start()).sentMsAgo).toBeNull();
  });

  it('forgets a send the carrier answered, but never a later attempt’s', async () => {
    const ref = reference();
    const first = ledgers[0](ref, 101);
    await first.start();
    expect(await first.markSend()).toBe(true);
    // The carrier answered it (a fault in its own words): nothing of it is still in the making.
    await first.answered();
    const second = ledgers[1](ref, 201);
    expect((await second.start(new Date())).sentMsAgo).toBeNull();
    expect(await second.markSend()).toBe(true);
    // An answer to the first that arrives late does not clear the second's mark.
    await first.answered();
    expect((await ledgers[0](ref, 301).start(new Date())).sentMsAgo).not.toBeNull();
  });
});
