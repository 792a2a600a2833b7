// A time-skipping TestWorkflowEnvironment backed by the Java test server pool that
// test/setup/time-skipping.ts (vitest globalSetup) starts for the run. Each environment gets its own
// test server (time skipping is global to a server); call env.teardown() when done, which also frees
// that server.
import { TestWorkflowEnvironment, type TimeSkippingTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import { inject } from 'vitest';
import { ensureTestServer } from '../../scripts/temporal/test-server.js';
import { TIME_SKIPPING_WRAPPER_ENV } from '../setup/time-skipping.js';

export type TimeSkippingEnvOptions = Omit<TimeSkippingTestWorkflowEnvironmentOptions, 'server'>;

/** Path of the executable given to the SDK: the run's pool wrapper, else a standalone one (starts its own JVM). */
export async function timeSkippingExecutable(): Promise<string> {
  const provided = inject('timeSkippingWrapper') ?? process.env[TIME_SKIPPING_WRAPPER_ENV];
  if (provided) return provided;
  return await ensureTestServer();
}

export async function createTimeSkippingEnv(options: TimeSkippingEnvOptions = {}): Promise<TestWorkflowEnvironment> {
  const path = await timeSkippingExecutable();
  return await TestWorkflowEnvironment.createTimeSkipping({
    ...options,
    server: { executable: { type: 'existing-path', path } },
  });
}
