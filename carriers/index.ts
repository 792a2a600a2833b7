/**
 * The carriers folder's one door: the adapter interface, the registry, the HTTP client adapters use.
 * One more entry point sits beside it: `contract-kit.ts` (the tests every adapter passes; it imports
 * vitest, so production never loads it). The carrier simulators are tools (tools/carrier-sim/).
 */
export { CarrierError } from './types.js';
export type {
  AddressProblem,
  BookedPickup,
  BoughtLabel,
  CancelOutcome,
  CarrierAdapter,
  CarrierCapabilities,
  CarrierDefinition,
  CarrierLabelFormat,
  CarrierModule,
  CarrierMoney,
  KnownPurchase,
  LabelDocument,
  Purchase,
  PickupRequest,
  PurchaseLookup,
  PurchaseRequest,
  Rate,
  RateRequest,
  Scan,
  ScanForm,
  ScanFormRequest,
  ServiceDefinition,
  ShipmentTerms,
  StoredPurchase,
} from './types.js';
export { ADDRESS_MESSAGE_CODES, ADDRESS_VERIFIERS, US_POSTAL_COUNTRIES } from './address-verification.js';
export type { AddressMessage, AddressMessageCode, AddressVerification } from './address-verification.js';
export { rateFromCards } from './rate-card-adapter.js';
export { CARRIER_MODULES, carrierEnabled, createCarrierRegistry, defaultCarrierBaseUrls, REAL_CARRIER_MODULES } from './registry.js';
export type { CarrierRegistry } from './registry.js';
export { addressLimits, carrierRates, carrierTakes, quoteServices, shipmentHash } from './quote.js';
export type { CarrierQuote } from './quote.js';
export { createPriceCache, priceCacheOf, PRICE_CACHE_TTL_MS } from './price-cache.js';
export type { PriceCache } from './price-cache.js';
export { isRecord } from './decode.js';
export { createSandboxAdapter } from './sandbox/index.js';
export { acmeDefinition } from './acme/index.js';
export { swiftpostDefinition } from './swiftpost/index.js';
export { createUpsAdapter, upsDefinition, UPS_CREDENTIALS, TrackAlertEvent, trackAlertScan, TRACK_ALERT_USER_AGENT } from './ups/index.js';
export { createUspsAdapter, uspsDefinition, USPS_CREDENTIALS } from './usps/index.js';
export { createCarrierHttpClient, parseRetryAfter } from './http-client.js';
export { bandPrice, isInternational } from './rate-card.js';
export type { WeightBands } from './rate-card.js';
export { digitsFromSeed } from './tracking-digits.js';
