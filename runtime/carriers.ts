import { CARRIER_MODULES, createCarrierRegistry, defaultCarrierBaseUrls, REAL_CARRIER_SETTINGS, type CarrierRegistry } from '../carriers/index.js';
import { carrierSimUrl, parseConfig, type Config, type ParseOptions } from '../config/index.js';

/**
 * What config/ is told of the registered carriers (it names none itself): the simulated carriers'
 * codes, whose URLs and webhook secrets production requires, and the real carriers' settings as
 * their modules declare them.
 */
export const CARRIER_CONFIG: ParseOptions = { carriers: CARRIER_MODULES.map((m) => m.definition.code), realCarriers: REAL_CARRIER_SETTINGS };

/** The configuration of an environment, every carrier's settings read (tools and tests; processes use `loadConfig`). */
export const parseServiceConfig = (env: Readonly<Record<string, string | undefined>>): Config => parseConfig(env, CARRIER_CONFIG);

/**
 * The carrier registry as configured: each carrier's URL, else (outside production only) its path on
 * the simulator. A live carrier never falls back to the simulator in production. A real carrier
 * is on only with its URL and every required setting set (config: carrierCredentials).
 */
export function carrierRegistryFor(config: Config): CarrierRegistry {
  const simulated = config.production ? {} : defaultCarrierBaseUrls(carrierSimUrl(config));
  return createCarrierRegistry({
    baseUrls: { ...simulated, ...config.carrierUrls },
    timeoutMs: config.carrierTimeoutMs,
    settleMs: config.carrierSettleMs,
    credentials: config.carrierCredentials,
  });
}
