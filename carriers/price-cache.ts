import { CarrierError, type CarrierAdapter, type Rate, type RateRequest } from './types.js';

/** How long a carrier's answer is reused: quotes far more often than its rate limit still answer. */
export const PRICE_CACHE_TTL_MS = 3 * 60_000;
/** Entries kept at most; the oldest go first (a process quoting many parcels stays bounded). */
const MAX_ENTRIES = 10_000;

export interface PriceCacheOptions {
  ttlMs?: number;
  now?: () => number;
  maxEntries?: number;
}

/**
 * A process's carrier prices, by carrier, mode, currency and canonical parcel/route: every service
 * the carrier rated for that shipment. Two askers of the same shipment at once share one call, and
 * a call that fails is not kept.
 */
export interface PriceCache {
  /** The carrier's rates for the request (all its services on the route), from the cache or the carrier. */
  rates(adapter: CarrierAdapter, livemode: boolean, request: RateRequest & { hash: string }): Promise<Rate[]>;
  /** Entries held now, fresh or not yet evicted. */
  readonly size: number;
}

export function createPriceCache(options: PriceCacheOptions = {}): PriceCache {
  const ttlMs = options.ttlMs ?? PRICE_CACHE_TTL_MS;
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const entries = new Map<string, { at: number; rates: Promise<Rate[]> }>();

  return {
    get size() {
      return entries.size;
    },
    rates(adapter, livemode, request) {
      const { hash, serviceCode: _one, ...shipment } = request;
      const key = [adapter.definition.code, livemode ? 'live' : 'test', request.currency ?? '', hash].join(':');
      const found = entries.get(key);
      if (found && now() - found.at < ttlMs) return found.rates;
      if (found) entries.delete(key);
      const rates = adapter.rate(shipment);
      const entry = { at: now(), rates };
      entries.set(key, entry);
      rates.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      // A Map iterates in insertion order: the first key is the oldest entry.
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      return rates;
    },
  };
}

const shared = new WeakMap<object, PriceCache>();

/**
 * The one cache of a process for this owner (its carrier registry): the API and workers beside it
 * share it. An owner may bring its own (a cache on another clock).
 */
export function priceCacheOf(owner: object & { priceCache?: PriceCache }): PriceCache {
  if (owner.priceCache) return owner.priceCache;
  let cache = shared.get(owner);
  if (!cache) {
    cache = createPriceCache();
    shared.set(owner, cache);
  }
  return cache;
}

/**
 * The cache's answer, or a retryable CarrierError once `deadlineMs` has passed: the caller answers
 * without the carrier (the call goes on and fills the cache for the next asker).
 */
export async function ratesWithin(
  cache: PriceCache,
  adapter: CarrierAdapter,
  livemode: boolean,
  request: RateRequest & { hash: string },
  deadlineMs: number,
): Promise<Rate[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CarrierError('retryable', `${adapter.definition.name} did not answer within ${deadlineMs} ms`, { carrierCode: adapter.definition.code })),
      deadlineMs,
    );
  });
  try {
    return await Promise.race([cache.rates(adapter, livemode, request), late]);
  } finally {
    clearTimeout(timer);
  }
}
