import type { CarrierModule } from '../types.js';
import { USPS_SCHEMA_SOURCES } from './schema-sources.js';
import { createUspsAdapter } from './adapter.js';
import { uspsDefinition, USPS_SETTINGS } from './definition.js';

export { createUspsAdapter, uspsAdapterOn, uspsClientConfig } from './adapter.js';
export { uspsDefinition, USPS_SETTINGS };

export const uspsCarrier: CarrierModule = {
  definition: uspsDefinition,
  createHttpAdapter: (options) => createUspsAdapter(options),
  simulatorPath: '/usps',
  settings: USPS_SETTINGS,
  schemaSources: USPS_SCHEMA_SOURCES,
};
