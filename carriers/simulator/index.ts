/** The carrier simulator's entry point (development and tests): not part of the carriers' door. */
export { startCarrierSimulator } from './server.js';
export type { CarrierSimulator, CarrierSimulatorOptions } from './server.js';
