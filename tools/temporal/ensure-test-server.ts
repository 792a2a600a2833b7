// Resolves Temporal's Java time-skipping test server into the cache and prints the directory of its
// jars (`npx tsx tools/temporal/ensure-test-server.ts`, e.g. to warm the cache). Progress goes to
// stderr, the path alone to stdout.
import { ensureTestServer } from './test-server.js';

try {
  const lib = await ensureTestServer();
  process.stdout.write(`${lib}\n`);
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = 1;
}
