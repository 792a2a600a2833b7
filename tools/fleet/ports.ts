// The ports of the fleet: the well-known ones (`npm run fleet`, refused when taken) or free ones (tests).
import { freePorts } from '../../util/index.js';
import { portIsFree, tcpConnects } from '../temporal/process-utils.js';
import { DEFAULT_TEMPORAL_PORTS, type TemporalPorts } from './temporal-cluster.js';

export interface FleetPorts {
  temporal: TemporalPorts;
  api: number[];
  sim: number;
  ui: number;
}

/** Free ports in 20000–32767 (Temporal's cluster_membership table keeps ports as smallint). */
async function freeLowPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const p = 20_000 + Math.floor(Math.random() * 12_000);
    if (!ports.includes(p) && (await portIsFree('127.0.0.1', p))) ports.push(p);
  }
  return ports;
}

/** `default`: API 3000 and 3001, frontend 7233, UI 8080, simulator 4010 (an error if one is taken); `free`: any free ports. */
export async function fleetPorts(mode: 'default' | 'free'): Promise<FleetPorts> {
  if (mode === 'default') {
    const ports: FleetPorts = { temporal: DEFAULT_TEMPORAL_PORTS, api: [3000, 3001], sim: 4010, ui: 8080 };
    const taken = [];
    for (const p of [...Object.values(ports.temporal), ...ports.api, ports.sim, ports.ui]) if (await tcpConnects('127.0.0.1', p, 300)) taken.push(p);
    if (taken.length) throw new Error(`ports already in use: ${taken.join(', ')} (is \`npm start\` or another fleet running?)`);
    return ports;
  }
  const free = await freePorts(9, '127.0.0.1');
  // Temporal stores membership ports as a smallint: they must be below 32768, unlike most free ports.
  const low = await freeLowPorts(4);
  const at = (i: number): number => free[i] as number;
  return {
    temporal: {
      frontend: at(0),
      frontendHttp: at(1),
      frontendMembership: low[0] as number,
      history: at(2),
      historyMembership: low[1] as number,
      matching: at(3),
      matchingMembership: low[2] as number,
      worker: at(4),
      workerMembership: low[3] as number,
    },
    api: [at(5), at(6)],
    sim: at(7),
    ui: at(8),
  };
}
