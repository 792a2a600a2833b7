// Small Node helpers with no domain meaning, safe to import from any folder.
export { freePort, freePorts } from './free-ports.js';
