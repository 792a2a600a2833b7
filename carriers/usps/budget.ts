import { CarrierError } from '../types.js';

const HOUR_MS = 3_600_000;
/** The document's reprint limit: "Labels can only be reprinted up to 3 times." */
export const USPS_REPRINTS_PER_LABEL = 3;
/** USPS's default quota for an application: 60 calls an hour, token requests included. */
export const USPS_DEFAULT_CALLS_PER_HOUR = 60;

/**
 * USPS's quotas, counted before each call is sent so that none is spent on a call USPS would
 * refuse: the calls of the last hour (every call, tokens included) and each label's reprints. A
 * call beyond the hour's quota is refused as retryable, after the moment a call is free again; a
 * reprint beyond a label's three is refused for good. Counted per process: the queue's fleet-wide
 * rate limit and USPS's own 429 with Retry-After (client.ts) cover the rest.
 */
export function createUspsBudget(o: { callsPerHour: number; now: () => number }) {
  const sent: number[] = [];
  const reprints = new Map<string, number>();

  return {
    /** Counts one call, or throws when the hour's quota is spent. */
    spend(what: string): void {
      const t = o.now();
      while (sent.length && sent[0] <= t - HOUR_MS) sent.shift();
      if (sent.length >= o.callsPerHour) {
        const retryAfterMs = sent[0] + HOUR_MS - t;
        throw new CarrierError(
          'retryable',
          `USPS quota: the ${o.callsPerHour} calls an hour are spent; ${what} not sent, the next call is free in ${Math.ceil(retryAfterMs / 1000)} s`,
          { carrierCode: 'usps', retryAfterMs },
        );
      }
      sent.push(t);
    },

    /** Counts one reprint of a label, or throws when its three are spent (USPS would refuse it). */
    reprint(trackingNumber: string): void {
      const done = reprints.get(trackingNumber) ?? 0;
      if (done >= USPS_REPRINTS_PER_LABEL) {
        throw new CarrierError('definitive', `USPS reprints a label at most ${USPS_REPRINTS_PER_LABEL} times; ${trackingNumber} has had them`, { carrierCode: 'usps' });
      }
      reprints.set(trackingNumber, done + 1);
    },

    /** Calls counted in the last hour. */
    spent(): number {
      const t = o.now();
      return sent.filter((at) => at > t - HOUR_MS).length;
    },
  };
}

export type UspsBudget = ReturnType<typeof createUspsBudget>;
