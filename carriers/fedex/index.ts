import type { CarrierModule } from '../types.js';
import { createFedexAdapter, FEDEX_CREDENTIALS } from './adapter.js';
import { fedexDefinition } from './definition.js';

export { createFedexAdapter, fedexAdapterOn, fedexClientConfig, FEDEX_CREDENTIALS } from './adapter.js';
export { fedexDefinition };

export const fedexCarrier: CarrierModule = {
  definition: fedexDefinition,
  createHttpAdapter: (options) => createFedexAdapter(options),
  // The simulator serves FedEx's origin here: the token endpoint and every API under it.
  simulatorPath: '/fedex',
  credentials: FEDEX_CREDENTIALS,
};
