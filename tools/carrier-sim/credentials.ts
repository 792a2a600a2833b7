import { REAL_CARRIER_MODULES } from '../../carriers/index.js';
import { carrierSettingVariable } from '../../domain/index.js';

/** `MANIFEST_MID` → `manifestMid`: how the simulators' and clients' options name a setting. */
const camelCase = (suffix: string) => suffix.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * The development settings the shared simulator accepts for each real carrier, by carrier code and
 * variable suffix (`SIMULATOR_SETTINGS[code].CLIENT_ID`), as each carrier's module declares them
 * (`CarrierModule.settings`, `simulatorValue`): what an adapter's `credentials` take. They open
 * nothing but the simulator.
 */
export const SIMULATOR_SETTINGS: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.fromEntries(
  REAL_CARRIER_MODULES.map((m) => [m.definition.code, Object.fromEntries((m.settings ?? []).map((s) => [s.suffix, s.simulatorValue]))]),
);

/** The same by option name (`SIMULATOR_CREDENTIALS[code].manifestMid`), as the carriers' simulators and clients take them. */
export const SIMULATOR_CREDENTIALS: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.fromEntries(
  Object.entries(SIMULATOR_SETTINGS).map(([code, settings]) => [code, Object.fromEntries(Object.entries(settings).map(([suffix, value]) => [camelCase(suffix), value]))]),
);

/**
 * The environment that turns every real carrier on against a simulator at `simUrl` (its origin), in
 * the variables config/ reads: `npm start`, the test stack and the fleets use it. A carrier whose
 * URL the environment already names (`inherited`) is left as the operator set it.
 */
export function simulatorCarrierEnv(simUrl: string, inherited: Readonly<Record<string, string | undefined>> = {}): Record<string, string> {
  const root = simUrl.replace(/\/+$/, '');
  const env: Record<string, string> = {};
  for (const { definition, simulatorPath, settings } of REAL_CARRIER_MODULES) {
    const url = carrierSettingVariable(definition.code, 'URL');
    if (simulatorPath === undefined || inherited[url]) continue;
    env[url] = root + simulatorPath;
    for (const { suffix, simulatorValue } of settings ?? []) env[carrierSettingVariable(definition.code, suffix)] = simulatorValue;
  }
  return env;
}
