// Container entry point of the carrier simulator (`npx tsx deploy/carrier-sim.mjs`).
// carriers/simulator/main.ts listens on 127.0.0.1 only, which no other container can reach, so the
// compose fleet starts the same simulator here on CARRIER_SIM_HOST (all interfaces by default).
// The simulator is a stand-in for the carriers' and the card processor's APIs, never for production.
import { startCarrierSimulator } from '../carriers/index.ts';

const host = process.env.CARRIER_SIM_HOST || '0.0.0.0';
const portText = process.env.CARRIER_SIM_PORT ?? '4010';
const port = Number(portText);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(JSON.stringify({ level: 'error', msg: 'CARRIER_SIM_PORT must be a port number', value: portText }));
  process.exit(2);
}

const simulator = await startCarrierSimulator({ port, host });
console.log(JSON.stringify({ level: 'info', msg: 'carrier simulator listening', host, port: simulator.port }));

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.log(JSON.stringify({ level: 'info', msg: 'carrier simulator stopping', signal }));
  await simulator.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
