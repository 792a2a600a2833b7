// A time-skipping TestWorkflowEnvironment on a Java test server of its own (started here, killed by
// env.teardown()). Time skipping is global to a server, so environments never share one.
import { TestWorkflowEnvironment, type TimeSkippingTestWorkflowEnvironmentOptions } from '@temporalio/testing';
import { startTestServer } from '../../tools/temporal/test-server.js';

export type TimeSkippingEnvOptions = Omit<TimeSkippingTestWorkflowEnvironmentOptions, 'server'>;

/**
 * The SDK's own `create`, which createTimeSkipping calls after starting the server itself (and giving
 * it 5 s). It is private in the typings; the SDK version is pinned and time-skipping.test.ts covers it.
 */
interface SdkCreate {
  create(opts: TimeSkippingEnvOptions & { server: { type: 'existing' }; address: string; supportsTimeSkipping: true }): Promise<TestWorkflowEnvironment>;
}

export async function createTimeSkippingEnv(options: TimeSkippingEnvOptions = {}): Promise<TestWorkflowEnvironment> {
  const server = await startTestServer();
  let env: TestWorkflowEnvironment;
  try {
    env = await (TestWorkflowEnvironment as unknown as SdkCreate).create({
      ...options,
      server: { type: 'existing' },
      address: server.address,
      supportsTimeSkipping: true,
    });
  } catch (e) {
    await server.stop();
    throw e;
  }
  const teardown = env.teardown.bind(env);
  env.teardown = async () => {
    await teardown();
    await server.stop();
  };
  return env;
}
