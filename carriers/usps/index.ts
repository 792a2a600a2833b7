import type { CarrierModule } from '../types.js';
import { createUspsAdapter, USPS_CREDENTIALS } from './adapter.js';
import { uspsDefinition } from './definition.js';

export { createUspsAdapter, uspsAdapterOn, uspsClientConfig, USPS_CREDENTIALS } from './adapter.js';
export { uspsDefinition };

export const uspsCarrier: CarrierModule = {
  definition: uspsDefinition,
  createHttpAdapter: (options) => createUspsAdapter(options),
  simulatorPath: '/usps',
  credentials: USPS_CREDENTIALS,
};
