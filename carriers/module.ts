import type { CarrierSetting } from '../domain/index.js';
import type { CarrierAdapter, CarrierDefinition } from './types.js';

export interface HttpAdapterOptions {
  /** The carrier API's base address, e.g. the simulator's `http://127.0.0.1:4010/acme/v2`. */
  baseUrl: string;
  /** Deadline of every HTTP call in milliseconds (default 5000). */
  timeoutMs?: number;
  /**
   * For carriers without idempotency keys: how long a purchase request whose answer was lost may
   * still be committing at the carrier (longer than its processing time). No second purchase request
   * is sent within it.
   */
  settleMs?: number;
  /**
   * The carrier's settings by the suffix of their variable (`CLIENT_ID` of CARRIER_UPS_CLIENT_ID),
   * as its module declares them (`CarrierModule.settings`): every required one, and the optional
   * ones that are set. The adapter keeps them, and the tokens it gets with them, to itself.
   */
  credentials?: Readonly<Record<string, string>>;
}

/**
 * What each carrier folder exports from its `index.ts`, and the registry lists, one per carrier.
 * Everything the rest of the system needs to know of a carrier is declared here, so that adding one
 * is its folder and its registry line:
 * - `definition`: its services, its capabilities (`definition.capabilities`: pickups, address
 *   checks, customs, label formats…) and its fleet-wide rate limit (`definition.rateLimitPerSecond`,
 *   which its own task queues `carrier-<code>` and `carrier-<code>-tracking` hold);
 * - `settings`: what it needs configured beside its URL (real carriers), with the simulator's values;
 * - `simulatorPath`: where the carrier simulator plays its API.
 */
export interface CarrierModule {
  definition: CarrierDefinition;
  createHttpAdapter(options: HttpAdapterOptions): CarrierAdapter;
  /** Where the carrier simulator serves this carrier's API, when it does (`/acme/v2`; a real carrier's origin stands under a path of its own). */
  simulatorPath?: string;
  /**
   * A real carrier's settings beside its URL (`CARRIER_<CODE>_<SUFFIX>`). One that has them is
   * enabled only when its URL and every required one are set; a simulated carrier has none.
   */
  settings?: readonly CarrierSetting[];
}

/** The suffixes of a carrier's required settings: what its adapter cannot work without. */
export const requiredSettings = (settings: readonly CarrierSetting[]): string[] => settings.filter((s) => s.required).map((s) => s.suffix);
