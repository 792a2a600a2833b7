// vitest globalSetup: resolves the Java time-skipping test server's jars once, before any test file
// runs, so that two workers never run Maven into the cache at the same time. Each test file then
// starts the servers it needs (test/temporal-infra/time-skipping-env.ts).
import { ensureTestServer } from '../../tools/temporal/test-server.js';

export default async function setup(): Promise<void> {
  await ensureTestServer((msg) => process.stderr.write(`[time-skipping] ${msg}\n`));
}
