import { startCarrierSimulator } from './index.js';

// Entry point of `npm run carrier-sim`: the simulator on a fixed port for development.
const portText = process.env.CARRIER_SIM_PORT ?? '4010';
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(JSON.stringify({ level: 'error', msg: 'CARRIER_SIM_PORT must be a port number', value: portText }));
  process.exit(1);
}

const simulator = await startCarrierSimulator({ port, host: '127.0.0.1' });
console.log(JSON.stringify({ level: 'info', msg: 'carrier simulator listening', url: simulator.url }));

async function stop(): Promise<void> {
  await simulator.close();
  process.exit(0);
}
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
