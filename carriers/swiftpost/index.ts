import type { CarrierModule } from '../types.js';
import { swiftpostDefinition } from './definition.js';
import { createSwiftpostHttpAdapter } from './http-adapter.js';

export { swiftpostDefinition, createSwiftpostHttpAdapter };

export const swiftpostCarrier: CarrierModule = {
  definition: swiftpostDefinition,
  createHttpAdapter: createSwiftpostHttpAdapter,
  simulatorPath: '/swiftpost/api',
};
