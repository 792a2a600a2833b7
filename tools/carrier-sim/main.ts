import { ConfigError } from '../../config/index.js';
import { simulatorSettings } from '../tooling-config.js';
import { startCarrierSimulator } from './index.js';

// Entry point of `npm run carrier-sim` (and of the compose `carrier-sim` service, with
// CARRIER_SIM_HOST=0.0.0.0): the simulator on a fixed port, for development only.
let settings;
try {
  settings = simulatorSettings();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(JSON.stringify({ level: 'error', msg: `configuration error: ${err.message}` }));
  process.exit(2);
}

const simulator = await startCarrierSimulator(settings);
console.log(JSON.stringify({ level: 'info', msg: 'carrier simulator listening', url: simulator.url, ...simulator.carrierUrls, host: settings.host }));

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(JSON.stringify({ level: 'info', msg: 'carrier simulator stopping', signal }));
  await simulator.close();
  process.exit(0);
}
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
