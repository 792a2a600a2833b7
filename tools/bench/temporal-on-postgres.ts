// Temporal for the tracking bench as `npm run fleet` runs it: `temporal-server` on PostgreSQL with
// the fleet's configuration (deploy/temporal: four history shards, its dynamic config), instead of
// the dev server's one shard on a SQLite file.
import path from 'node:path';
import { childEnv } from '../../config/index.js';
import { SEARCH_ATTRIBUTES } from '../../contract/index.js';
import { ensureEmbeddedPostgres, runningPostmaster } from '../../db/index.js';
import { fleetPorts } from '../fleet/ports.js';
import { managed, type FleetProcess } from '../fleet/process.js';
import { prepareNamespace, setupTemporalSchema, temporalDbFromUrl, temporalEnv, temporalServerArgs } from '../fleet/temporal-cluster.js';
import { tcpConnects, type Log } from '../temporal/process-utils.js';
import { ensureTemporalServer } from '../temporal/server.js';

export interface TemporalOnPostgres {
  address: string;
  /** The server: one process running its four services. */
  pid: number;
  /** Temporal's own PostgreSQL, apart from ours, so that its CPU counts as Temporal's. */
  storePid: number;
  stop(): Promise<void>;
}

export async function startTemporalOnPostgres(dir: string, namespace: string, log: Log): Promise<TemporalOnPostgres> {
  const storeDir = path.join(dir, 'temporal-store');
  const [binaries, store, ports] = await Promise.all([ensureTemporalServer(log), ensureEmbeddedPostgres(storeDir), fleetPorts('free')]);
  const db = temporalDbFromUrl(store.url);
  let server: FleetProcess | undefined;
  const stop = async () => {
    await server?.stop(15_000);
    await store.stop();
  };
  try {
    await setupTemporalSchema(binaries, db, log);
    server = managed(
      {
        name: 'temporal-server',
        cmd: binaries.server,
        args: temporalServerArgs(),
        env: childEnv(temporalEnv(db, ports.temporal)),
        ready: () => tcpConnects('127.0.0.1', ports.temporal.frontend, 500),
        readyTimeoutMs: 120_000,
      },
      path.join(dir, 'logs'),
      log,
    );
    await server.start();
    const address = `127.0.0.1:${ports.temporal.frontend}`;
    const running = server;
    await prepareNamespace({
      address,
      namespace,
      searchAttributes: { ...SEARCH_ATTRIBUTES },
      timeoutMs: 180_000,
      alive: () => (running.running() ? undefined : `temporal-server exited; see ${running.logFile}`),
      log,
    });
    const storePid = runningPostmaster(storeDir);
    if (!server.pid || !storePid) throw new Error('Temporal on PostgreSQL started without a pid to measure');
    return { address, pid: server.pid, storePid, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
