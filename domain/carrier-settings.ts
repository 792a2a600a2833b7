/**
 * What a real carrier needs configured beside its URL, as its module declares it. The carriers
 * room's modules hold these declarations and the registry lists them; config/ reads the variables
 * they name and tools/ gives the simulator's values. A type of its own here, so that config/ (which
 * may import only domain/) can be handed the declarations without importing carriers/.
 */

/** One setting, read from `CARRIER_<CODE>_<SUFFIX>`. */
export interface CarrierSetting {
  /** The variable's suffix: `CLIENT_ID` of `CARRIER_UPS_CLIENT_ID`. */
  suffix: string;
  /** Never logged or echoed: its value shows as `[redacted]` wherever the configuration is serialized. */
  secret: boolean;
  /**
   * Required settings turn the carrier on only together, with its URL; in production a partial set
   * refuses to start. An optional one never turns it on alone.
   */
  required: boolean;
  /** What it is, for the configuration's documentation and its error messages. */
  description: string;
  /** The value the carrier simulator accepts, which `npm start` and the tests set (never a secret of ours). */
  simulatorValue: string;
}

/** A carrier's settings, by its code (`CARRIER_<CODE>_…` is its code in upper case). */
export interface CarrierSettings {
  code: string;
  settings: readonly CarrierSetting[];
}

/** `CARRIER_<CODE>_<SUFFIX>`, the code in upper case: `blue_courier` and `API_KEY` are `CARRIER_BLUE_COURIER_API_KEY`. */
export const carrierSettingVariable = (code: string, suffix: string) => `CARRIER_${code.toUpperCase()}_${suffix}`;
