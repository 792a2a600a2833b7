import { CARRIER_MODULES, defaultCarrierBaseUrls } from '../../carriers/index.js';
import { startCarrierSimulator } from '../../tools/carrier-sim/index.js';
import { describeCarrierAdapterContract } from '../support/carrier-kit/index.js';
import { addFault, addSimScan } from './sim-helpers.js';

// Every carrier the simulator plays (a simulatorPath), against its own simulator started for this
// file; a carrier it does not play brings a contract test of its own (carriers/README.md).
for (const carrier of CARRIER_MODULES.filter((m) => m.simulatorPath !== undefined)) {
  describeCarrierAdapterContract(`${carrier.definition.code} over HTTP`, async () => {
    const sim = await startCarrierSimulator({ port: 0 });
    const baseUrl = defaultCarrierBaseUrls(sim.url)[carrier.definition.code];
    return {
      // A short deadline and settle window (a carrier without idempotency keys settles an ambiguous
      // buy itself): the failure checks wait for them.
      adapter: carrier.createHttpAdapter({ baseUrl, timeoutMs: 1000, settleMs: 1000 }),
      addScan: (trackingNumber, status) => addSimScan(sim.url, trackingNumber, status),
      failNext: (operation, match, fault) =>
        addFault(sim.url, {
          carrier: carrier.definition.code,
          operation,
          match,
          times: 1,
          mode: fault.mode,
          ...(fault.mode === 'error' ? { status: fault.status } : {}),
          ...(fault.mode === 'rate_limit' ? { retry_after: fault.retryAfterS } : {}),
        }),
      teardown: () => sim.close(),
    };
  });
}
