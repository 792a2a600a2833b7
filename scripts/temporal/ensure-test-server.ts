// Resolves Temporal's Java time-skipping test server into the cache and prints the path of the
// executable to give TestWorkflowEnvironment.createTimeSkipping (`npx tsx scripts/temporal/ensure-test-server.ts`,
// e.g. from .ci/run to warm the cache). Progress goes to stderr, the path alone to stdout.
import { ensureTestServer } from './test-server.js';

try {
  const wrapper = await ensureTestServer();
  process.stdout.write(`${wrapper}\n`);
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = 1;
}
