import { describeCarrierAdapterContract } from '../../support/carrier-kit/index.js';
import { fedexCarrier } from '../../../carriers/fedex/index.js';
import { SIMULATOR_SETTINGS, startCarrierSimulator } from '../../../tools/carrier-sim/index.js';
import { addFault, addSimScan } from '../sim-helpers.js';

// FedEx through the adapter its module makes, against the shared simulator's FedEx (`/fedex`,
// checking every request and answer against the schemas of FedEx's documents) with the settings
// its module declares for the simulator, and with the simulator's faults: the contract every
// carrier passes, the Errors table included (contract-real.test.ts runs it without faults).
describeCarrierAdapterContract('fedex over HTTP, with faults', async () => {
  const sim = await startCarrierSimulator({ port: 0 });
  return {
    adapter: fedexCarrier.createHttpAdapter({ baseUrl: sim.carrierUrls.fedex!, timeoutMs: 1000, credentials: SIMULATOR_SETTINGS.fedex }),
    addScan: (trackingNumber, status) => addSimScan(sim.url, trackingNumber, status),
    failNext: (operation, match, fault) =>
      addFault(sim.url, {
        carrier: 'fedex',
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
