import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { ensureEmbeddedPostgres, migrateDatabase, openDatabase } from '../../db/index.js';
import { SEARCH_ATTRIBUTES } from '../../domain/index.js';
import { startCarrierSimulator } from '../../carriers/index.js';
import { startDevServer } from '../../scripts/temporal/cli.js';
import { WORKFLOWS_PATH } from '../../workers/run.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    carrierSimUrl: string;
    workflowBundlePath: string;
  }
}

const log = (msg: string) => process.stderr.write(`[stack] ${msg}\n`);

/**
 * One real PostgreSQL, one Temporal dev server, one carrier simulator and one workflow bundle for
 * the whole run. Test files start their own API and workers on these, isolated by account and
 * task-queue prefix. DATABASE_URL and TEMPORAL_ADDRESS point the run at external services instead.
 */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(path.join(tmpdir(), 'parcel-test-'));
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach its directory.
  await chmod(dir, 0o755);
  const started = Date.now();
  const [pg, temporal, sim, bundle] = await Promise.all([
    process.env.DATABASE_URL
      ? Promise.resolve({ url: process.env.DATABASE_URL, stop: async () => undefined })
      : ensureEmbeddedPostgres(dir),
    process.env.TEMPORAL_ADDRESS
      ? Promise.resolve({ address: process.env.TEMPORAL_ADDRESS, stop: async () => undefined })
      : startDevServer({ dataDir: dir, port: 0, uiPort: 0, searchAttributes: { ...SEARCH_ATTRIBUTES }, log }),
    startCarrierSimulator({ port: 0, host: '127.0.0.1' }),
    bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger }),
  ]);
  const database = openDatabase(pg.url, { max: 2 });
  await migrateDatabase(database);
  await database.close();
  const bundlePath = path.join(dir, 'workflow-bundle.js');
  await writeFile(bundlePath, bundle.code);
  log(`ready in ${Date.now() - started} ms: postgres, temporal ${temporal.address}, simulator ${sim.url}`);

  project.provide('databaseUrl', pg.url);
  project.provide('temporalAddress', temporal.address);
  project.provide('carrierSimUrl', sim.url);
  project.provide('workflowBundlePath', bundlePath);

  return async () => {
    await sim.close();
    await temporal.stop();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  };
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => log(m) };
