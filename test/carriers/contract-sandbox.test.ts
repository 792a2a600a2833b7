import { CARRIER_MODULES, createSandboxAdapter } from '../../carriers/index.js';
import { describeCarrierAdapterContract } from '../support/carrier-kit/index.js';

// Every registered carrier's sandbox, a new one included. Sandbox adapters report no scans of their
// own, so the kit leaves the scan checks out.
for (const { definition } of CARRIER_MODULES) {
  describeCarrierAdapterContract(`${definition.code} sandbox`, async () => ({ adapter: createSandboxAdapter(definition) }));
}
