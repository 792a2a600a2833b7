import { createCarrierRegistry, defaultCarrierBaseUrls, type CarrierRegistry } from '../carriers/index.js';
import { carrierSimUrl, type Config } from '../config/index.js';

/**
 * The carrier registry as configured: each carrier's URL, else (outside production only) its path on
 * the simulator. A live carrier never falls back to the simulator in production. A real carrier
 * (UPS, USPS) is on only with its URL and every credential set (config: carrierCredentials).
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
