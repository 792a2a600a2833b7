import type { CarrierModule } from '../types.js';
import { UPS_SCHEMA_SOURCES } from './schema-sources.js';
import { createUpsAdapter } from './adapter.js';
import { upsDefinition, UPS_SETTINGS } from './definition.js';

export { createUpsAdapter, upsAdapterOn, upsClientConfig } from './adapter.js';
export { upsDefinition, UPS_SETTINGS };
export { TrackAlertEvent, trackAlertScan } from './track-alert.js';

export const upsCarrier: CarrierModule = {
  definition: upsDefinition,
  createHttpAdapter: (options) => createUpsAdapter(options),
  // The simulator serves UPS's origin here: the token endpoint and the APIs under `/api`.
  simulatorPath: '/ups',
  settings: UPS_SETTINGS,
  schemaSources: UPS_SCHEMA_SOURCES,
};
