import { CARRIER_MODULES } from '../carriers/index.js';

/** The code of every registered carrier; admin/session.ts imports this module only when it needs them. */
export const carrierCodes = (): string[] => CARRIER_MODULES.map((m) => m.definition.code);
