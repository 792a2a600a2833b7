/** The carrier simulators' door (development and tests): the carriers' own door does not include them. */
export { startCarrierSimulator } from './server.js';
export type { CarrierSimulator, CarrierSimulatorOptions } from './server.js';
export { SIMULATOR_CREDENTIALS, SIMULATOR_SETTINGS, simulatorCarrierEnv } from './credentials.js';
