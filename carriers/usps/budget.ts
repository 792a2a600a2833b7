import { CarrierError } from '../types.js';

/** The document's reprint limit: "Labels can only be reprinted up to 3 times." */
export const USPS_REPRINTS_PER_LABEL = 3;
/** USPS's default quota for an application: 60 calls an hour, token requests included. */
export const USPS_DEFAULT_CALLS_PER_HOUR = 60;

/**
 * Each label's reprints, counted before each is sent: a reprint beyond a label's three is refused
 * for good, as USPS would refuse it. (The hour's quota of calls, tokens included, is the shared
 * client's: `limits.callsPerHour` of USPS's declaration.) Counted per process.
 */
export function createUspsReprints() {
  const reprints = new Map<string, number>();
  return {
    /** Counts one reprint of a label, or throws when its three are spent (USPS would refuse it). */
    reprint(trackingNumber: string): void {
      const done = reprints.get(trackingNumber) ?? 0;
      if (done >= USPS_REPRINTS_PER_LABEL) {
        throw new CarrierError('definitive', `USPS reprints a label at most ${USPS_REPRINTS_PER_LABEL} times; ${trackingNumber} has had them`, { carrierCode: 'usps' });
      }
      reprints.set(trackingNumber, done + 1);
    },
  };
}
