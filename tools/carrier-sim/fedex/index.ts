/** The FedEx simulator's door: the core that answers requests, and the server that serves it on a port of its own. */
export * from './simulator.js';
export { startFedexSimulator } from './server.js';
