import { describeCarrierAdapterContract } from '../../carriers/contract-kit.js';
import { createUpsAdapter } from '../../carriers/ups/index.js';
import { createUspsAdapter } from '../../carriers/usps/index.js';
import { SIMULATOR_CREDENTIALS, startCarrierSimulator } from '../../tools/carrier-sim/index.js';
import { addSimScan } from './sim-helpers.js';

// UPS and USPS, through the adapters the registry makes, against a simulator started for this file
// with the simulator's credentials, as `npm start` and the test stack configure them. How their
// clients classify failures is checked in test/carriers/ups, test/carriers/usps and
// sim-real-carriers.test.ts.
describeCarrierAdapterContract('ups over HTTP', async () => {
  const sim = await startCarrierSimulator({ port: 0 });
  const { clientId, clientSecret, accountNumber } = SIMULATOR_CREDENTIALS.ups;
  return {
    adapter: createUpsAdapter({
      baseUrl: sim.carrierUrls.ups,
      timeoutMs: 2000,
      credentials: { CLIENT_ID: clientId, CLIENT_SECRET: clientSecret, ACCOUNT_NUMBER: accountNumber },
    }),
    addScan: (trackingNumber, status) => addSimScan(sim.url, trackingNumber, status),
    teardown: () => sim.close(),
  };
});

describeCarrierAdapterContract('usps over HTTP', async () => {
  const sim = await startCarrierSimulator({ port: 0 });
  const c = SIMULATOR_CREDENTIALS.usps;
  return {
    adapter: createUspsAdapter({
      baseUrl: sim.carrierUrls.usps,
      timeoutMs: 2000,
      credentials: { CLIENT_ID: c.clientId, CLIENT_SECRET: c.clientSecret, CRID: c.crid, MID: c.mid, MANIFEST_MID: c.manifestMid, ACCOUNT_NUMBER: c.accountNumber },
    }),
    addScan: (trackingNumber, status) => addSimScan(sim.url, trackingNumber, status),
    teardown: () => sim.close(),
  };
});
