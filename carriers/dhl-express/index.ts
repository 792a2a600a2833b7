import type { CarrierModule } from '../types.js';
import { createDhlExpressAdapter, DHL_EXPRESS_CREDENTIALS } from './adapter.js';
import { dhlExpressDefinition } from './definition.js';

export { createDhlExpressAdapter, dhlAdapterOn, dhlClientConfig, DHL_EXPRESS_CREDENTIALS } from './adapter.js';
export { dhlExpressDefinition };

export const dhlExpressCarrier: CarrierModule = {
  definition: dhlExpressDefinition,
  createHttpAdapter: (options) => createDhlExpressAdapter(options),
  // The simulator serves the document's server URL here (`…/mydhlapi` stands for `<sim>/dhl-express`).
  simulatorPath: '/dhl-express',
  credentials: DHL_EXPRESS_CREDENTIALS,
};
