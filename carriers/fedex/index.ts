import type { CarrierModule } from '../types.js';
import { FEDEX_SCHEMA_SOURCES } from './schema-sources.js';
import { createFedexAdapter } from './adapter.js';
import { fedexDefinition, FEDEX_SETTINGS } from './definition.js';

export { createFedexAdapter, fedexAdapterOn, fedexClientConfig } from './adapter.js';
export { fedexDefinition, FEDEX_SETTINGS };

export const fedexCarrier: CarrierModule = {
  definition: fedexDefinition,
  createHttpAdapter: (options) => createFedexAdapter(options),
  // The simulator serves FedEx's origin here: the token endpoint and every API under it.
  simulatorPath: '/fedex',
  settings: FEDEX_SETTINGS,
  schemaSources: FEDEX_SCHEMA_SOURCES,
};
