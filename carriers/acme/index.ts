import type { CarrierModule } from '../types.js';
import { acmeDefinition } from './definition.js';
import { createAcmeHttpAdapter } from './http-adapter.js';

export { acmeDefinition, createAcmeHttpAdapter };

export const acmeCarrier: CarrierModule = {
  definition: acmeDefinition,
  createHttpAdapter: createAcmeHttpAdapter,
  simulatorPath: '/acme/v2',
};
