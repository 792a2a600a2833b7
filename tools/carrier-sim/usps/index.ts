/** The USPS simulator's door: what its operations share, the core that answers requests, and the server that serves it on a port of its own. */
export * from './desk.js';
export * from './simulator.js';
export { startUspsSimulator } from './server.js';
