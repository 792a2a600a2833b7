// vitest globalSetup: one pool of Temporal Java test servers for the whole test run. Tests get a
// time-skipping environment from test/temporal-infra/time-skipping-env.ts (createTimeSkippingEnv),
// each with a test server of its own, already started in the background here.
import type { TestProject } from 'vitest/node';
import { startTestServerPool } from '../../scripts/temporal/test-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Executable for TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } }). */
    timeSkippingWrapper: string;
  }
}

/** Also set for code that runs outside vitest's inject() (e.g. helper processes the tests spawn). */
export const TIME_SKIPPING_WRAPPER_ENV = 'TEMPORAL_TIME_SKIPPING_WRAPPER';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const pool = await startTestServerPool({
    log: (msg) => process.stderr.write(`[time-skipping] ${msg}\n`),
  });
  project.provide('timeSkippingWrapper', pool.wrapperPath);
  process.env[TIME_SKIPPING_WRAPPER_ENV] = pool.wrapperPath;
  return async () => {
    await pool.stop();
    if (process.env[TIME_SKIPPING_WRAPPER_ENV] === pool.wrapperPath) delete process.env[TIME_SKIPPING_WRAPPER_ENV];
  };
}
