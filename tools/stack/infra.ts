import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startCarrierSimulator } from '../carrier-sim/index.js';
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase } from '../../db/index.js';
import { SEARCH_ATTRIBUTES } from '../../contract/index.js';
import { startDevServer } from '../temporal/dev-server.js';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../workers/run.js';

/** The run's shared services: one PostgreSQL, one Temporal, one carrier simulator, one workflow bundle. */
export interface Infra {
  databaseUrl: string;
  temporalAddress: string;
  carrierSimUrl: string;
  workflowBundlePath: string;
}

const noop = () => undefined;

/**
 * One real PostgreSQL, one Temporal dev server, one carrier simulator and one workflow bundle.
 * DATABASE_URL and TEMPORAL_ADDRESS point at external services instead.
 */
export async function startInfra(log: (msg: string) => void): Promise<Infra & { stop(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'parcel-test-'));
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its directory.
  await chmod(dir, 0o755);
  const started = Date.now();
  const quiet = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => log(m) };
  const [pg, temporal, sim, bundle] = await Promise.all([
    process.env.DATABASE_URL
      ? Promise.resolve({ url: process.env.DATABASE_URL, stop: async () => undefined })
      : ensureEmbeddedPostgres(dir),
    process.env.TEMPORAL_ADDRESS
      ? Promise.resolve({ address: process.env.TEMPORAL_ADDRESS, stop: async () => undefined })
      : startDevServer({ dataDir: dir, port: 0, uiPort: 0, searchAttributes: { ...SEARCH_ATTRIBUTES }, log }),
    startCarrierSimulator({ port: 0, host: '127.0.0.1' }),
    bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: quiet }),
  ]);
  const database = openDatabase(pg.url, { max: 2 });
  await migrateDatabase(database);
  await database.close();
  const workflowBundlePath = path.join(dir, 'workflow-bundle.js');
  await writeFile(workflowBundlePath, bundle.code);
  log(`ready in ${Date.now() - started} ms: postgres, temporal ${temporal.address}, simulator ${sim.url}`);
  return {
    databaseUrl: pg.url,
    temporalAddress: temporal.address,
    carrierSimUrl: sim.url,
    workflowBundlePath,
    async stop() {
      await sim.close();
      await temporal.stop();
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
