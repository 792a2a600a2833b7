import { carrierSettingVariable, type CarrierSetting } from '../domain/index.js';
import type { HttpAdapterOptions } from './types.js';

/**
 * A real carrier's settings from its adapter's options, every one of `names` present; a missing one
 * fails at first use, naming its variable (CARRIER_<CODE>_<NAME>) and never a value.
 */
export function requiredCredentials<N extends string>(carrierCode: string, names: readonly N[], options: HttpAdapterOptions): Record<N, string> {
  const given = options.credentials ?? {};
  const missing = names.filter((name) => !given[name]);
  if (missing.length) {
    throw new Error(`carrier ${carrierCode}: missing ${missing.map((name) => carrierSettingVariable(carrierCode, name)).join(', ')}`);
  }
  return given as Record<N, string>;
}

/** The suffixes of a carrier's required settings: what its adapter cannot work without. */
export const requiredSettings = (settings: readonly CarrierSetting[]): string[] => settings.filter((s) => s.required).map((s) => s.suffix);
