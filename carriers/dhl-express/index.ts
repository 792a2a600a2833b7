import type { CarrierModule } from '../types.js';
import { DHL_EXPRESS_SCHEMA_SOURCES } from './schema-sources.js';
import { createDhlExpressAdapter } from './adapter.js';
import { dhlExpressDefinition, DHL_EXPRESS_SETTINGS } from './definition.js';

export { createDhlExpressAdapter, dhlAdapterOn, dhlClientConfig } from './adapter.js';
export { dhlExpressDefinition, DHL_EXPRESS_SETTINGS };

export const dhlExpressCarrier: CarrierModule = {
  definition: dhlExpressDefinition,
  createHttpAdapter: (options) => createDhlExpressAdapter(options),
  // The simulator serves the document's server URL here (`…/mydhlapi` stands for `<sim>/dhl-express`).
  simulatorPath: '/dhl-express',
  settings: DHL_EXPRESS_SETTINGS,
  schemaSources: DHL_EXPRESS_SCHEMA_SOURCES,
};
