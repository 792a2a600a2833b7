import { acmeCarrier } from './acme/index.js';
import { dhlExpressCarrier } from './dhl-express/index.js';
import { createSandboxAdapter } from './sandbox/index.js';
import { swiftpostCarrier } from './swiftpost/index.js';
import { upsCarrier } from './ups/index.js';
import { uspsCarrier } from './usps/index.js';
import { fedexCarrier } from './fedex/index.js';
import { requiredSettings } from './credentials.js';
import type { CarrierSettings } from '../domain/index.js';
import type { CarrierAdapter, CarrierDefinition, CarrierModule, ServiceDefinition } from './types.js';

/** The simulated carriers, always on (each needs a URL in production). Adding one: its folder, plus one line here. */
export const CARRIER_MODULES: readonly CarrierModule[] = [
  acmeCarrier,
  swiftpostCarrier,
];

/** The real carriers: each on only where its URL and every required setting are configured. Adding one: its folder, plus one line here. */
export const REAL_CARRIER_MODULES: readonly CarrierModule[] = [
  upsCarrier,
  uspsCarrier,
  fedexCarrier,
  dhlExpressCarrier,
];

/**
 * Every carrier: nothing else lists them. What the rest of the system knows of a carrier (its
 * settings, capabilities, queues and rate limits, its simulator) is derived from these modules.
 */
export const ALL_CARRIER_MODULES: readonly CarrierModule[] = [...CARRIER_MODULES, ...REAL_CARRIER_MODULES];

/** Each real carrier's settings as its module declares them: what config/ reads (runtime/ hands them in). */
export const REAL_CARRIER_SETTINGS: readonly CarrierSettings[] = REAL_CARRIER_MODULES.map((m) => ({ code: m.definition.code, settings: m.settings ?? [] }));

/** The codes of the carriers whose capabilities hold `has`, in the registry's order. */
export function carriersWhere(has: (capabilities: CarrierDefinition['capabilities']) => unknown): string[] {
  return ALL_CARRIER_MODULES.filter((m) => has(m.definition.capabilities)).map((m) => m.definition.code);
}

/**
 * The carriers an address check asks, in order: those that check addresses, by their
 * `addressVerificationRank` (a postal service's own register before a courier's).
 */
export const ADDRESS_VERIFIERS: readonly string[] = ALL_CARRIER_MODULES.map((m) => m.definition)
  .filter((d) => d.capabilities.addressVerification?.length)
  .sort((a, b) => (a.capabilities.addressVerificationRank ?? 0) - (b.capabilities.addressVerificationRank ?? 0))
  .map((d) => d.code);

export interface CarrierRegistryOptions {
  /** Base URL of each carrier's live API, by carrier code. */
  baseUrls: Record<string, string>;
  /** Deadline of each carrier HTTP call (default 5000 ms). */
  timeoutMs?: number;
  /** The settle window of carriers without idempotency keys (HttpAdapterOptions.settleMs). */
  settleMs?: number;
  /** Each real carrier's credentials by carrier code and setting suffix (HttpAdapterOptions.credentials). */
  credentials?: Record<string, Readonly<Record<string, string>>>;
}

export interface CarrierRegistry {
  definitions: CarrierDefinition[];
  carrier(code: string): CarrierDefinition | undefined;
  findService(serviceCode: string): { carrier: CarrierDefinition; service: ServiceDefinition } | undefined;
  /** The sandbox adapter (livemode false) or the live HTTP adapter of a carrier; one of each per registry. */
  adapter(carrierCode: string, livemode: boolean): CarrierAdapter;
}

/** Whether a carrier can be turned on: one without settings always, a real one when its URL and every required setting are set. */
export function carrierEnabled(module: CarrierModule, options: Pick<CarrierRegistryOptions, 'baseUrls' | 'credentials'>): boolean {
  if (!module.settings) return true;
  const credentials = options.credentials?.[module.definition.code];
  return Boolean(options.baseUrls[module.definition.code]) && credentials !== undefined && requiredSettings(module.settings).every((name) => Boolean(credentials[name]));
}

export function createCarrierRegistry(
  options: CarrierRegistryOptions,
  candidates: readonly CarrierModule[] = ALL_CARRIER_MODULES,
): CarrierRegistry {
  const modules = candidates.filter((m) => carrierEnabled(m, options));
  const byCode = new Map(modules.map((m) => [m.definition.code, m]));
  if (byCode.size !== modules.length) throw new Error('carrier registry: two carriers share a code');
  const definitions = modules.map((m) => m.definition);
  const sandboxAdapters = new Map<string, CarrierAdapter>();
  const liveAdapters = new Map<string, CarrierAdapter>();

  function moduleFor(code: string): CarrierModule {
    const found = byCode.get(code);
    if (!found) throw new Error(`carrier registry: unknown carrier "${code}"`);
    return found;
  }

  return {
    definitions,
    carrier: (code) => byCode.get(code)?.definition,
    findService(serviceCode) {
      for (const carrier of definitions) {
        const service = carrier.services.find((s) => s.code === serviceCode);
        if (service) return { carrier, service };
      }
      return undefined;
    },
    adapter(carrierCode, livemode) {
      const carrierModule = moduleFor(carrierCode);
      const cache = livemode ? liveAdapters : sandboxAdapters;
      let adapter = cache.get(carrierCode);
      if (!adapter) {
        adapter = livemode ? createLiveAdapter(carrierModule, options) : createSandboxAdapter(carrierModule.definition);
        cache.set(carrierCode, adapter);
      }
      return adapter;
    },
  };
}

function createLiveAdapter(module: CarrierModule, options: CarrierRegistryOptions): CarrierAdapter {
  const baseUrl = options.baseUrls[module.definition.code];
  // Fail loudly at first use: a live purchase must never fall back to somewhere else.
  if (!baseUrl) throw new Error(`carrier registry: no base URL configured for carrier "${module.definition.code}"`);
  const credentials = options.credentials?.[module.definition.code];
  return module.createHttpAdapter({ baseUrl, timeoutMs: options.timeoutMs, settleMs: options.settleMs, ...(credentials ? { credentials } : {}) });
}

/** Each simulated carrier's base URL on a carrier simulator at `simBaseUrl` (dev and tests). */
export function defaultCarrierBaseUrls(simBaseUrl: string, modules: readonly CarrierModule[] = ALL_CARRIER_MODULES): Record<string, string> {
  const root = simBaseUrl.replace(/\/+$/, '');
  const urls: Record<string, string> = {};
  for (const m of modules) {
    if (m.simulatorPath) urls[m.definition.code] = root + m.simulatorPath;
  }
  return urls;
}
