import { describeCarrierAdapterContract } from '../../../carriers/contract-kit.js';
import { createFedexAdapter } from '../../../carriers/fedex/index.js';
import { startCarrierSimulator } from '../../../tools/carrier-sim/index.js';
import { addFault, addSimScan } from '../sim-helpers.js';

// FedEx through its adapter against the shared simulator's FedEx (`/fedex`, checking every request
// and answer against the schemas of FedEx's documents), with the simulator's own credentials and
// its faults: the contract every carrier passes, the Errors table included.
describeCarrierAdapterContract('fedex over HTTP', async () => {
  const sim = await startCarrierSimulator({ port: 0 });
  return {
    adapter: createFedexAdapter({
      baseUrl: sim.carrierUrls.fedex,
      timeoutMs: 1000,
      credentials: { CLIENT_ID: 'sim-fedex-client-id', CLIENT_SECRET: 'sim-fedex-client-secret', ACCOUNT_NUMBER: '740561073' },
    }),
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
