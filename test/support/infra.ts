/** The run's shared services, as the global setup starts them (tools/stack/). */
export { startInfra } from '../../tools/stack/index.js';
