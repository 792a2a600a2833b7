import { parseArgs } from 'node:util';

export const SCENARIO_NAMES = ['durable', 'floor', 'quotes', 'purchases', 'labels'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];
/** The scenarios that put a closed-loop load on one endpoint with one key. */
export type LoadScenarioName = Exclude<ScenarioName, 'durable' | 'floor'>;
export type Mode = 'test' | 'live';

export interface BenchOptions {
  url: URL;
  /** Absent: the bench creates a demo account and its keys. */
  key?: string;
  mode: Mode;
  scenarios: ScenarioName[];
  concurrency: number;
  /** Concurrency levels of the `durable` scenario (durable purchase against a direct one). */
  levels: number[];
  /** Per scenario; a scenario stops at this count or at `timeMs`, whichever comes first. */
  requests: number;
  timeMs: number;
  /** True when `--duration` set the time bound (else `timeMs` is only a safety cap). */
  timed: boolean;
  jsonOnly: boolean;
  help: boolean;
}

/** A bad command line: shown with the usage, exit 2. */
export class UsageError extends Error {}

export const USAGE = `usage: npm run bench -- [options]
  --url <origin>           API to drive (default http://localhost:$PORT, PORT default 3000); loopback only
  --key <svc_…>            API key to use; without it a demo account with a sandbox and a live key is
                           created in the stack's database (same DATA_DIR or DATABASE_URL as npm start)
  --scenarios <list>       comma-separated: ${SCENARIO_NAMES.join(',')} (default all)
  --levels <list>          concurrency levels of the durable scenario (default 1,8,32): a live wallet purchase
                           through API, Temporal and workers against a direct one (hold, carrier call,
                           capture; no Temporal) on the same database and simulator, with the ratios
                           (floor, in the default set: the purchase's history with no-op steps at 8 clients, on
                           a Temporal dev server of its own, and the durable purchase's share of its throughput)
  --concurrency <n>        closed-loop workers, each sending its next request when the last answers (default 8)
  --requests <n>           requests per scenario (default 200; with --duration only, at most 100000)
  --duration <t>           time per scenario, e.g. 10s, 500ms, 2m (default: bounded by --requests, at most 5 min)
  --mode test|live         test = sandbox key, which moves no money (default); with --key, the key's own mode
  --json-only              print only the JSON result on stdout
  --help                   this text
Starting stacks of their own instead (nothing need run):
  npm run bench -- rate-split [--tracked 10] [--purchases 5] [--rps 2]
                           purchases behind a backlog of tracking polls, one shared queue against the split
  npm run bench -- sdk-floor [--clients 8] [--workflows 300] [--warmup 100]
                           the purchase's history with no-op steps: the Temporal server's and the SDK's CPU alone
  npm run bench -- batch [--items 1000] [--singles 1000] [--clients 8]
                           one batch of --items purchases against --singles single purchases at --clients clients
  npm run bench -- tracking [--parcels 1000] [--scale <n>] [--days 8] [--purchases 200]
                           parcels in flight through a simulated week: CPU per parcel-day, carrier calls,
                           memory per open workflow, purchases with them in flight (--help: every option)`;

const DEFAULT_REQUESTS = 200;
/** The count bound of a run timed by --duration alone. */
const DURATION_ONLY_REQUESTS = 100_000;
/** The time bound of a run counted by --requests: a stuck API cannot hold the bench for ever. */
const SAFETY_TIME_MS = 5 * 60_000;
const MAX_DURATION_MS = 60 * 60_000;
const MAX_REQUESTS = 1_000_000;
const MAX_CONCURRENCY = 512;

function positiveInt(text: string, name: string, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(`${name} must be a whole number from 1 to ${max}, got "${text}"`);
  }
  return Number(text);
}

/** "10s", "500ms", "2m", or bare seconds → milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000) : NaN;
  if (!m || !(ms >= 1) || ms > MAX_DURATION_MS) {
    throw new UsageError(`--duration must look like 10s, 500ms or 2m (at most 60m), got "${text}"`);
  }
  return Math.round(ms);
}

/** The bench only ever loads this machine: a closed loop against someone else's server is an attack. */
export function isLoopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::ffff:127.0.0.1';
}

export function parseOptions(argv: string[], defaults: { port: number }): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        scenarios: { type: 'string' },
        concurrency: { type: 'string' },
        levels: { type: 'string' },
        requests: { type: 'string' },
        duration: { type: 'string' },
        mode: { type: 'string' },
        'json-only': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;

  let url: URL;
  try {
    url = new URL(v.url ?? `http://localhost:${defaults.port}`);
  } catch {
    throw new UsageError(`--url must be an absolute URL such as http://localhost:3000, got "${v.url}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--url must be http or https');
  if (!isLoopback(url)) throw new UsageError(`--url must be on this machine (localhost, 127.0.0.1 or ::1), got ${url.host}`);

  const scenarios = (v.scenarios ?? SCENARIO_NAMES.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scenarios.filter((s) => !(SCENARIO_NAMES as readonly string[]).includes(s));
  if (unknown.length || !scenarios.length) {
    throw new UsageError(`--scenarios takes a list of ${SCENARIO_NAMES.join(', ')}; unknown: ${unknown.join(', ') || '(empty)'}`);
  }

  if (v.mode !== undefined && v.mode !== 'test' && v.mode !== 'live') throw new UsageError(`--mode must be test or live, got "${v.mode}"`);
  let mode: Mode = (v.mode as Mode | undefined) ?? 'test';
  if (v.key !== undefined) {
    const m = /^svc_(test|live)_[A-Za-z0-9]+$/.exec(v.key);
    if (!m) throw new UsageError('--key must be an API key such as svc_test_…');
    if (v.mode !== undefined && v.mode !== m[1]) throw new UsageError(`--mode ${v.mode} does not match the ${m[1]} key given with --key`);
    mode = m[1] as Mode;
  }

  const timed = v.duration !== undefined;
  const timeMs = timed ? parseDuration(v.duration!) : SAFETY_TIME_MS;
  const requests =
    v.requests !== undefined ? positiveInt(v.requests, '--requests', MAX_REQUESTS) : timed ? DURATION_ONLY_REQUESTS : DEFAULT_REQUESTS;

  return {
    url,
    key: v.key,
    mode,
    scenarios: SCENARIO_NAMES.filter((s) => scenarios.includes(s)),
    concurrency: v.concurrency !== undefined ? positiveInt(v.concurrency, '--concurrency', MAX_CONCURRENCY) : 8,
    levels: (v.levels ?? '1,8,32').split(',').map((l) => positiveInt(l.trim(), '--levels', MAX_CONCURRENCY)),
    requests,
    timeMs,
    timed,
    jsonOnly: v['json-only'] ?? false,
    help: v.help ?? false,
  };
}

/**
 * The flags of a scenario that starts a stack of its own (`rate-split`, `sdk-floor`, `batch`): numbers given
 * as strings with their defaults, and `--help`. Prints the usage (to stdout for --help, to stderr
 * after a bad flag) and returns the exit code when the scenario should not run.
 */
export function parseScenarioFlags<K extends string>(
  argv: string[],
  defaults: Record<K, string>,
  usage: string,
  /** Flags that take no value: given, they read 'yes'; absent, their default. */
  switches: readonly NoInfer<K>[] = [],
): { values: Record<K, string> } | { exit: number } {
  const options = Object.fromEntries(
    Object.entries(defaults).map(([name, value]) => [name, switches.includes(name as K) ? { type: 'boolean' as const } : { type: 'string' as const, default: value as string }]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean' } } }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${usage}`);
    return { exit: 2 };
  }
  if (values.help) {
    process.stdout.write(usage);
    return { exit: 0 };
  }
  for (const name of switches) values[name] = values[name] === true ? 'yes' : defaults[name];
  return { values: values as Record<K, string> };
}
