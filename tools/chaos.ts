/**
 * `npm run chaos`: the service as separate processes under crashes and carrier faults, then the
 * invariants "never lost, never doubled, never stuck" as a table, and every purchase's latency by
 * what it met (p50, p95, p99, max). Exit status 1 on any violation.
 * Options: --purchases N, --batch-items B, --concurrency C, --seed S, --duration SECONDS, --settle SECONDS, --no-build, --help.
 */
import { CHAOS_USAGE, parseChaosArgs } from './chaos/options.js';
import { runChaos } from './chaos/run.js';

let parsed: ReturnType<typeof parseChaosArgs>;
try {
  parsed = parseChaosArgs(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`chaos: ${(err as Error).message}\n${CHAOS_USAGE}\n`);
  process.exit(2);
}
if (parsed === 'help') {
  process.stdout.write(`${CHAOS_USAGE}\n`);
  process.exit(0);
}
const options = parsed;
const started = Date.now();
const log = (line: string) => process.stdout.write(`${line}\n`);
const result = await runChaos({ ...options, log });
log('');
log(`faults: ${Object.entries(result.faults).map(([k, v]) => `${k} ${v}`).join(', ')}`);
if (result.crashes.length) log(`processes that exited by themselves (restarted): ${result.crashes.join('; ')}`);
log(`total ${Math.round((Date.now() - started) / 1000)} s`);
log('');
log(result.table);
log('');
log('latency of every purchase, by what it met:');
log(result.latencyTable);
log('');
log('the worker SIGKILL row by the worker killed (the first kill each purchase met):');
log(result.killTable);
log('');
log('every purchase once, by the one thing that touched it (its history says whether a kill took one of its tasks):');
log(result.soleCauseTable);
log('');
log('the slowest purchase of each row:');
log(result.slowest);
log('');
log('where the slow purchases waited:');
log(result.slowWaits);
log('');
log(result.ok ? 'PASS: no violation' : 'FAIL: see the checks above');
process.exit(result.ok ? 0 : 1);
