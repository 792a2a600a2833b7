import { REAL_CARRIER_MODULES } from '../../carriers/index.js';
import { describeCarrierAdapterContract } from '../support/carrier-kit/index.js';
import { SIMULATOR_SETTINGS, startCarrierSimulator } from '../../tools/carrier-sim/index.js';
import { addSimScan } from './sim-helpers.js';

// Every real carrier, through the adapter its module makes (as the registry does), against a
// simulator started for its own file with the settings its module declares for the simulator, as
// `npm start` and the test stack configure them. How their clients classify failures is checked in
// each carrier's own test folder and sim-real-carriers.test.ts.
for (const carrier of REAL_CARRIER_MODULES) {
  const code = carrier.definition.code;
  describeCarrierAdapterContract(`${code} over HTTP`, async () => {
    const sim = await startCarrierSimulator({ port: 0 });
    return {
      adapter: carrier.createHttpAdapter({ baseUrl: sim.carrierUrls[code], timeoutMs: 2000, credentials: SIMULATOR_SETTINGS[code] }),
      addScan: (trackingNumber, status) => addSimScan(sim.url, trackingNumber, status),
      teardown: () => sim.close(),
    };
  });
}
