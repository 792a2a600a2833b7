import { CARRIER_MODULES, REAL_CARRIER_SETTINGS } from '../carriers/index.js';
import type { ParseOptions } from '../config/index.js';

/** What config/ is told of the registered carriers; admin/session.ts imports this module only when it needs them. */
export const carrierConfigOptions = (): ParseOptions => ({ carriers: CARRIER_MODULES.map((m) => m.definition.code), realCarriers: REAL_CARRIER_SETTINGS });
