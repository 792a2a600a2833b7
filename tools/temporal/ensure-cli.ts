// Prints the path of a working Temporal CLI, building it into the cache first if need be.
// `npx tsx tools/temporal/ensure-cli.ts` (e.g. from .ci/run, to warm the cache before the tests).
// Progress goes to stderr, the path alone to stdout.
import { ensureTemporalCli } from './cli.js';

try {
  const cli = await ensureTemporalCli();
  process.stdout.write(`${cli}\n`);
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = 1;
}
