import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierFaults } from '../../tools/chaos/schedule.js';
import { startCarrierSimulator, type CarrierSimulator } from '../../tools/carrier-sim/index.js';
import { simCall } from './sim-helpers.js';

// `npm run chaos` plants these faults for its whole window; one the simulator refuses stops the run
// before its first purchase (a DHL Express `cancel` did: DHL has no cancellation).
let sim: CarrierSimulator;
beforeAll(async () => {
  sim = await startCarrierSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
});

describe('the chaos run’s carrier faults', () => {
  it('are each accepted by the simulator, for every simulated carrier', async () => {
    const refused: string[] = [];
    for (const fault of carrierFaults()) {
      const res = await simCall(sim.url, 'POST', '/_sim/faults', { ...fault, times: 1, match: 'never-matches-anything' });
      if (res.status !== 201) refused.push(`${fault.carrier}/${fault.operation}/${fault.mode}: ${JSON.stringify(res.body)}`);
    }
    expect(refused).toEqual([]);
  });
});
