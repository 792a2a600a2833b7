import { CARRIER_MODULES, defaultCarrierBaseUrls } from '../../carriers/index.js';
import { startCarrierSimulator } from '../../carriers/simulator/index.js';
import { describeCarrierAdapterContract } from '../../carriers/contract-kit.js';
import { addSimScan } from './sim-helpers.js';

// Every HTTP carrier, against its own simulator started for this file.
for (const carrier of CARRIER_MODULES) {
  describeCarrierAdapterContract(`${carrier.definition.code} over HTTP`, async () => {
    const sim = await startCarrierSimulator({ port: 0 });
    const baseUrl = defaultCarrierBaseUrls(sim.url)[carrier.definition.code];
    return {
      adapter: carrier.createHttpAdapter({ baseUrl, timeoutMs: 2000 }),
      addScan: (trackingNumber, status) => addSimScan(sim.url, trackingNumber, status),
      teardown: () => sim.close(),
    };
  });
}
