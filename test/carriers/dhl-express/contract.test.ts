import { dhlExpressCarrier } from '../../../carriers/dhl-express/index.js';
import { describeCarrierAdapterContract } from '../../support/carrier-kit/index.js';
import { SIMULATOR_SETTINGS, startCarrierSimulator } from '../../../tools/carrier-sim/index.js';
import { addFault, addSimScan } from '../sim-helpers.js';

// DHL Express through the adapter its module makes, against the shared simulator (which checks every
// request and answer against the MyDHL API document's schemas), with the kit's failure checks: the
// simulator's faults on DHL's quote, buy, lookup by reference and tracking. DHL has no cancel, so the
// kit's cancel fault does not apply (`capabilities.void: 'none'`).
describeCarrierAdapterContract('dhl_express over HTTP, with faults', async () => {
  const sim = await startCarrierSimulator({ port: 0 });
  const code = dhlExpressCarrier.definition.code;
  return {
    adapter: dhlExpressCarrier.createHttpAdapter({ baseUrl: sim.carrierUrls[code], timeoutMs: 1_500, credentials: SIMULATOR_SETTINGS[code] }),
    addScan: (trackingNumber, status) => addSimScan(sim.url, trackingNumber, status),
    failNext: (operation, match, fault) =>
      addFault(sim.url, {
        carrier: code,
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
