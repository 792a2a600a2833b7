/**
 * The carriers folder's one door: the adapter interface, the module every carrier declares, the
 * registry, and the shared HTTP client adapters use (kit/). The contract kit every adapter passes is
 * test support (test/support/carrier-kit/); the carrier simulators are tools (tools/carrier-sim/).
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
  HttpAdapterOptions,
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
  SendLedger,
  ServiceDefinition,
  ShipmentTerms,
  StoredPurchase,
} from './types.js';
export { ADDRESS_MESSAGE_CODES, US_POSTAL_COUNTRIES } from './address-verification.js';
export type { AddressMessage, AddressMessageCode, AddressVerification } from './address-verification.js';
export type { CarrierSchemaSources, SchemaErratum, SchemaJson, SchemaOperation } from './schema-sources.js';
export { operationSchemas } from './carrier-schemas.js';
export type { OperationSchemas, RequestParameters, SchemaSource } from './carrier-schemas.js';
export { rateFromCards } from './rate-card-adapter.js';
export {
  ADDRESS_VERIFIERS,
  ALL_CARRIER_MODULES,
  CARRIER_MODULES,
  carrierEnabled,
  carriersWhere,
  createCarrierRegistry,
  defaultCarrierBaseUrls,
  REAL_CARRIER_MODULES,
  REAL_CARRIER_SETTINGS,
} from './registry.js';
export type { CarrierRegistry } from './registry.js';
export { addressLimits, carrierRates, carrierTakes, quoteServices, shipmentHash } from './quote.js';
export type { CarrierQuote } from './quote.js';
export { createPriceCache, priceCacheOf, PRICE_CACHE_TTL_MS } from './price-cache.js';
export type { PriceCache } from './price-cache.js';
export { isRecord } from './decode.js';
export { createSandboxAdapter } from './sandbox/index.js';
export { acmeDefinition } from './acme/index.js';
export { swiftpostDefinition } from './swiftpost/index.js';
// UPS Track Alert's pushed events, read by the API's endpoint for them (api/routes/ups-track-alert.ts).
export { TrackAlertEvent, trackAlertScan } from './ups/index.js';
export { createCarrierHttpClient, parseRetryAfter } from './http-client.js';
export { bandPrice, isInternational } from './rate-card.js';
export type { WeightBands } from './rate-card.js';
export { digitsFromSeed } from './tracking-digits.js';
