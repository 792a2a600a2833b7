export { createSandboxAdapter } from './adapter.js';
