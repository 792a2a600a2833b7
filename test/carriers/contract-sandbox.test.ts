import { acmeDefinition, createSandboxAdapter, swiftpostDefinition } from '../../carriers/index.js';
import { describeCarrierAdapterContract } from '../../carriers/contract-kit.js';

// Sandbox adapters report no scans of their own, so the kit leaves the scan checks out.
for (const definition of [acmeDefinition, swiftpostDefinition]) {
  describeCarrierAdapterContract(`${definition.code} sandbox`, async () => ({ adapter: createSandboxAdapter(definition) }));
}
