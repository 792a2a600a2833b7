/**
 * The carriers folder's one door: the adapter interface, the registry, the HTTP client adapters use.
 * One more entry point sits beside it: `contract-kit.ts` (the tests every adapter passes; it imports
 * vitest, so production never loads it). The carrier simulators are tools (tools/carrier-sim/).
 */
export * from './types.js';
export { CARRIER_MODULES, createCarrierRegistry, defaultCarrierBaseUrls } from './registry.js';
export type { CarrierRegistry, CarrierRegistryOptions } from './registry.js';
export { quoteServices, serviceNet } from './quote.js';
export { isRecord } from './decode.js';
export type { ServiceQuote } from './quote.js';
export { createSandboxAdapter } from './sandbox/index.js';
export { acmeDefinition } from './acme/index.js';
export { swiftpostDefinition } from './swiftpost/index.js';
export {
  createCarrierHttpClient,
  parseRetryAfter,
  readCommonError,
  isReadOperation,
  DEFAULT_TIMEOUT_MS,
} from './http-client.js';
export type { CarrierCall, CarrierHttpClient, CarrierHttpClientOptions, CarrierOperation } from './http-client.js';
export { bandPrice, isInternational } from './rate-card.js';
export type { WeightBands } from './rate-card.js';
export { digitsFromSeed, luhnCheckDigit } from './tracking-digits.js';
