/**
 * The deployment files checked against the code, without Docker: docker-compose.yml (anchors and
 * merge keys resolved), the Dockerfile, deploy/nginx/nginx.conf, deploy/.env.example and
 * .dockerignore. A renamed script, a misspelt variable, a search attribute added to the code but
 * not registered, or an nginx upstream pointing nowhere fails here rather than on a real engine.
 * Where the docker compose CLI is installed, `docker compose config -q` parses the file too (it
 * needs no daemon).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CARRIER_MODULES } from '../../carriers/index.js';
import { carrierVariable, isConfigVariable } from '../../config/index.js';
import { SEARCH_ATTRIBUTES } from '../../contract/index.js';
import { isToolingVariable } from '../../tools/tooling-config.js';
import { DISPATCH_TUNING } from '../../tools/temporal/tuning.js';
import {
  DEFAULT_TEMPORAL_PORTS,
  DYNAMIC_CONFIG_FILE,
  SCHEMA_SETUP_SCRIPT,
  TEMPORAL_CONFIG_FILE,
  TEMPORAL_CONFIG_ROOT,
  TEMPORAL_SERVICES,
  temporalEnv,
  temporalServerArgs,
  type TemporalService,
} from '../../tools/fleet/temporal-cluster.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const exists = (file: string) => existsSync(path.join(ROOT, file));

type Scalar = string | number | boolean | null;
interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, Scalar> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  volumes?: Array<string | { type?: string; source?: string; target?: string }>;
  ports?: Array<string | number | { target?: number; published?: string | number }>;
  restart?: string;
  stop_grace_period?: string;
  deploy?: { replicas?: number };
}

const COMPOSE_TEXT = read('docker-compose.yml');
const compose = parse(COMPOSE_TEXT, { merge: true }) as { services: Record<string, Service> };
const services = compose.services;
const serviceNames = Object.keys(services);
const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
const carrierCodes = CARRIER_MODULES.map((m) => m.definition.code);

// --- deploy/.env.example and compose interpolation -------------------------------------------

/** Every NAME in deploy/.env.example, set (`NAME=value`) or documented with its default (`# NAME=…`). */
const ENV_EXAMPLE_TEXT = read('deploy/.env.example');
const exampleSet = new Map<string, string>();
const exampleDocumented = new Set<string>();
for (const line of ENV_EXAMPLE_TEXT.split('\n')) {
  const set = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
  if (set) exampleSet.set(set[1], set[2]);
  const any = /^#?\s*([A-Z_][A-Z0-9_]*)=/.exec(line.trim());
  if (any) exampleDocumented.add(any[1]);
}

/** Compose's interpolation with the example values: ${V}, ${V:-default}, ${V-default}, ${V:?err}, $$. */
function interpolate(value: string): string {
  return value
    .replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (whole, name?: string, op?: string, arg?: string) => {
      if (whole === '$$') return '$';
      const set = exampleSet.get(name!);
      if (op?.endsWith('?')) {
        if (!set) throw new Error(`\${${name}} is required but deploy/.env.example does not set it`);
        return set;
      }
      if (op?.endsWith('-')) return set || (arg ?? '');
      return set ?? '';
    });
}

function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((entry) => {
      const at = entry.indexOf('=');
      return at < 0 ? [entry, ''] : [entry.slice(0, at), entry.slice(at + 1)];
    }));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function dependsOn(service: Service): Record<string, string> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, 'service_started']));
  return Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, v?.condition ?? 'service_started']));
}

function words(command: string | string[] | undefined): string[] | undefined {
  if (command === undefined) return undefined;
  return Array.isArray(command) ? command.map(String) : command.trim().split(/\s+/);
}

// --- The Dockerfile ----------------------------------------------------------------------------

interface Stage {
  name: string;
  base: string;
  instructions: Array<{ op: string; args: string }>;
}

function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const upper = op.toUpperCase();
    if (upper === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      const base = m[1].replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, n: string) => globalArgs[n] ?? '');
      stages.push({ name: m[2] ?? String(stages.length), base, instructions: [] });
    } else if (upper === 'ARG' && !stages.length) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/.exec(args)!;
      globalArgs[m[1]] = m[2] ?? '';
    } else if (stages.length) {
      stages[stages.length - 1].instructions.push({ op: upper, args });
    }
  }
  return { args: globalArgs, stages };
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const runtimeStage = dockerfile.stages[dockerfile.stages.length - 1];
const instructionsOf = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.args);
const execForm = (args: string) => (args.startsWith('[') ? (JSON.parse(args) as string[]) : ['/bin/sh', '-c', args]);
const imageCmd = execForm(instructionsOf(runtimeStage, 'CMD').at(-1) ?? '[]');
const imageHasHealthcheck = instructionsOf(runtimeStage, 'HEALTHCHECK').some((h) => !/^NONE$/i.test(h));

// --- Which process each service runs -----------------------------------------------------------

const isAppService = (s: Service) => s.build !== undefined;
const appServices = serviceNames.filter((n) => isAppService(services[n]));

interface Entry {
  /** The source file (`api/main.ts`) whose compiled JavaScript the command runs. */
  file: string;
  args: string[];
}

/**
 * The source of the compiled file a command runs (`node dist/api/main.js` → `api/main.ts`), and its
 * arguments; throws on anything else: production images run the JavaScript `npm run build` made
 * into dist/, never TypeScript through tsx (no transpiling at every start, no loader in production).
 */
function entryOf(argv: string[]): Entry {
  const at = argv.findIndex((w, i) => i > 0 && !w.startsWith('-'));
  if (argv[0] !== 'node' || at < 0) throw new Error(`"${argv.join(' ')}" does not run node <file>`);
  if (argv.includes('tsx') || argv.includes('--import')) throw new Error(`"${argv.join(' ')}" runs TypeScript through a loader`);
  const m = /^dist\/(.+)\.js$/.exec(argv[at]);
  if (!m) throw new Error(`"${argv.join(' ')}" runs ${argv[at]}, not compiled JavaScript under dist/`);
  return { file: `${m[1]}.ts`, args: argv.slice(at + 1) };
}

const commandOf = (s: Service) => words(s.command) ?? imageCmd;
const entryOfService = (name: string) => entryOf(commandOf(services[name]));

/** Worker groups workers/main.ts accepts: shipments (or purchases, tracking), carriers, webhooks, all, carrier-<registered code>. */
const WORKER_GROUPS = ['shipments', 'purchases', 'tracking', 'carriers', 'webhooks', 'all'];
const validWorkerGroup = (g: string) =>
  WORKER_GROUPS.includes(g) || (g.startsWith('carrier-') && carrierCodes.includes(g.slice('carrier-'.length)));
const workerGroupsOf = (name: string) => {
  const entry = entryOfService(name);
  return entry.file === 'workers/main.ts' ? entry.args : [];
};

// =============================================================================================

describe('docker-compose.yml: services', () => {
  it('has the whole fleet', () => {
    for (const name of [
      'postgres',
      'temporal-schema',
      'temporal',
      'temporal-history',
      'temporal-matching',
      'temporal-worker',
      'temporal-setup',
      'temporal-ui',
      'api',
      'lb',
      'worker-shipments',
      'worker-carriers',
      'worker-webhooks',
      'carrier-sim',
    ]) {
      expect(services, `service ${name}`).toHaveProperty(name);
    }
  });

  it('gives every service an image or a build, with pinned tags', () => {
    for (const [name, s] of Object.entries(services)) {
      expect(s.image ?? s.build, `${name}: image or build`).toBeTruthy();
      if (s.image) {
        const image = interpolate(s.image);
        expect(image, `${name}: ${s.image}`).toMatch(/^[a-z0-9./_-]+:[A-Za-z0-9._-]+$/);
        expect(image, `${name}: ${s.image}`).not.toMatch(/:latest$/);
      }
    }
    expect(services.postgres.image).toMatch(/^postgres:16\b/);
    for (const name of ['temporal', 'temporal-history', 'temporal-matching', 'temporal-worker']) expect(services[name].image).toMatch(/^temporalio\/server:/);
    expect(services['temporal-schema'].image).toMatch(/^temporalio\/admin-tools:/);
    expect(services['temporal-setup'].image).toMatch(/^temporalio\/admin-tools:/);
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
    expect(services.lb.image).toMatch(/^nginx:/);
  });

  it('builds the app services from this repository and its Dockerfile', () => {
    expect(appServices.sort()).toEqual(['api', 'carrier-sim', 'codec', 'worker-carriers', 'worker-shipments', 'worker-webhooks']);
    for (const name of appServices) {
      const build = services[name].build!;
      const context = typeof build === 'string' ? build : (build.context ?? '.');
      const file = typeof build === 'string' ? 'Dockerfile' : (build.dockerfile ?? 'Dockerfile');
      expect(path.resolve(ROOT, context), `${name}: build context`).toBe(ROOT);
      expect(exists(file), `${name}: ${file}`).toBe(true);
    }
  });

  it('runs the compiled JavaScript of an entry file that exists, in each app service', () => {
    for (const name of appServices) {
      const entry = entryOfService(name);
      expect(exists(entry.file), `${name}: ${entry.file}`).toBe(true);
    }
    expect(entryOfService('api').file).toBe('api/main.ts');
    for (const name of ['worker-shipments', 'worker-carriers', 'worker-webhooks']) {
      expect(entryOfService(name).file, name).toBe('workers/main.ts');
    }
    // The simulator listens on loopback unless told otherwise; in a container it must listen on all interfaces.
    expect(entryOfService('carrier-sim').file).toBe('tools/carrier-sim/main.ts');
    expect(environmentOf(services['carrier-sim']).CARRIER_SIM_HOST).toBe('0.0.0.0');
  });

  it('names only worker groups that workers/main.ts accepts, and serves every task queue', () => {
    const source = read('workers/run.ts') + read('workers/main.ts');
    for (const group of WORKER_GROUPS) expect(source, `group ${group} in workers/`).toContain(`'${group}'`);
    const served = new Set<string>();
    for (const name of appServices) {
      for (const group of workerGroupsOf(name)) {
        expect(validWorkerGroup(group), `${name}: worker group "${group}"`).toBe(true);
        served.add(group);
      }
    }
    expect(workerGroupsOf('worker-shipments')).toEqual(['shipments']);
    expect(workerGroupsOf('worker-carriers')).toEqual(['carriers']);
    expect(workerGroupsOf('worker-webhooks')).toEqual(['webhooks']);
    for (const queue of ['shipments', 'webhooks']) expect(served.has(queue) || served.has('all'), queue).toBe(true);
    for (const code of carrierCodes) {
      expect(served.has('carriers') || served.has('all') || served.has(`carrier-${code}`), `queue carrier-${code}`).toBe(true);
    }
  });

  it('sets only environment variables the code reads (a typo fails)', () => {
    for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'PUBLIC_BASE_URL', 'CARD_PROCESSOR_URL', 'SIGNING_SECRET', 'WEBHOOK_SECRET_KEY', 'NODE_ENV', 'CARRIER_ACME_URL']) {
      expect(isConfigVariable(name), name).toBe(true);
    }
    expect(isConfigVariable('SIGNING_SECRETS')).toBe(false);
    for (const name of appServices) {
      for (const variable of Object.keys(environmentOf(services[name]))) {
        expect(isConfigVariable(variable) || isToolingVariable(variable), `${name}: ${variable} is in neither config/schema.ts nor tools/tooling-config.ts`).toBe(true);
        const carrier = carrierVariable(variable);
        if (carrier) expect(carrierCodes, `${name}: ${variable} names no registered carrier`).toContain(carrier.code);
      }
    }
  });

  it('gives every process that loads the configuration what production requires', () => {
    for (const name of appServices.filter((n) => ['api/main.ts', 'workers/main.ts'].includes(entryOfService(n).file))) {
      const env = environmentOf(services[name]);
      for (const required of ['NODE_ENV', 'DATABASE_URL', 'TEMPORAL_ADDRESS', 'SIGNING_SECRET', 'WEBHOOK_SECRET_KEY']) {
        expect(env[required], `${name}: ${required}`).toBeTruthy();
      }
      expect(env.NODE_ENV).toBe('production');
      expect(interpolate(env.SIGNING_SECRET).length, `${name}: SIGNING_SECRET (32 characters at least, as production requires)`).toBeGreaterThanOrEqual(32);
      expect(new URL(interpolate(env.DATABASE_URL)).pathname, `${name}: database`).toBe('/shipping');
    }
  });

  it('points every URL and address at a service that exists, carriers at their simulator paths', () => {
    for (const name of serviceNames) {
      for (const [variable, raw] of Object.entries(environmentOf(services[name]))) {
        const value = interpolate(raw);
        const url = /^[a-z][a-z0-9+.-]*:\/\//.test(value) ? new URL(value) : undefined;
        const host = url ? url.hostname : /^([a-z][a-z0-9-]*):(\d+)$/.exec(value)?.[1];
        // PUBLIC_BASE_URL is the origin customers reach from outside, not a service.
        if (!host || host === 'localhost' || host === '127.0.0.1' || host === '0.0.0.0' || variable === 'PUBLIC_BASE_URL') continue;
        const m = /^CARRIER_([A-Z0-9]+)_URL$/.exec(variable);
        const carrier = m && CARRIER_MODULES.find((c) => c.definition.code === m[1].toLowerCase());
        // A carrier the simulator does not play has no service here: its example is its real API.
        if (carrier && carrier.simulatorPath === undefined) continue;
        expect(serviceNames, `${name}: ${variable}=${value}`).toContain(host);
        if (host === 'carrier-sim' && url) {
          expect(url.port, `${name}: ${variable}`).toBe(environmentOf(services['carrier-sim']).CARRIER_SIM_PORT);
          if (carrier) expect(url.pathname, `${name}: ${variable}`).toBe(carrier.simulatorPath);
        }
      }
    }
  });

  it('waits on services that exist, healthy or completed as they can be, without cycles', () => {
    const healthchecked = (name: string) => {
      const s = services[name];
      if (s.healthcheck?.disable) return false;
      return Boolean(s.healthcheck?.test) || (isAppService(s) && imageHasHealthcheck);
    };
    for (const [name, s] of Object.entries(services)) {
      for (const [target, condition] of Object.entries(dependsOn(s))) {
        expect(serviceNames, `${name} depends on ${target}`).toContain(target);
        expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(condition);
        if (condition === 'service_healthy') expect(healthchecked(target), `${name} waits for ${target} to be healthy`).toBe(true);
        if (condition === 'service_completed_successfully') {
          expect(services[target].restart ?? 'no', `${target} is a one-shot`).toBe('no');
        }
      }
    }
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (name: string, trail: string[]) => {
      if (done.has(name)) return;
      expect(visiting.has(name), `dependency cycle ${[...trail, name].join(' -> ')}`).toBe(false);
      visiting.add(name);
      for (const target of Object.keys(dependsOn(services[name]))) visit(target, [...trail, name]);
      visiting.delete(name);
      done.add(name);
    };
    for (const name of serviceNames) visit(name, []);
  });

  it('starts app processes after PostgreSQL is healthy and Temporal is set up', () => {
    for (const name of appServices.filter((n) => environmentOf(services[n]).TEMPORAL_ADDRESS)) {
      const deps = dependsOn(services[name]);
      expect(deps.postgres, name).toBe('service_healthy');
      expect(deps['temporal-setup'], name).toBe('service_completed_successfully');
    }
    expect(dependsOn(services['temporal-setup']).temporal).toBe('service_healthy');
    for (const name of ['temporal', 'temporal-history', 'temporal-matching', 'temporal-worker']) {
      expect(dependsOn(services[name])['temporal-schema'], name).toBe('service_completed_successfully');
    }
    expect(dependsOn(services['temporal-schema']).postgres).toBe('service_healthy');
    expect(dependsOn(services.lb).api).toBe('service_healthy');
  });

  it("keeps the API's /healthz check off the workers, which probe their metrics port instead", () => {
    for (const name of appServices.filter((n) => entryOfService(n).file === 'workers/main.ts')) {
      const check = services[name].healthcheck;
      expect(check, `${name}: a healthcheck of its own (the image's is the API's)`).toBeDefined();
      if (check!.disable) continue;
      const test = (words(check!.test) ?? []).join(' ');
      expect(test, name).not.toContain('/healthz');
      const port = /127\.0\.0\.1:(\d+)/.exec(test)?.[1];
      expect(port, `${name}: probes WORKER_METRICS_PORT`).toBe(environmentOf(services[name]).WORKER_METRICS_PORT);
    }
  });

  it('runs two API replicas behind the balancer only', () => {
    expect(services.api.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(services.api.ports, 'replicas cannot share a published port; lb publishes').toBeUndefined();
  });

  it("gives the API and the workers 30 s to stop, longer than the app's own drain", () => {
    const source = read('config/config.ts');
    const configDefault = (variable: string) => Number(new RegExp(`'${variable}',\\s*([\\d_]+)`).exec(source)?.[1].replace(/_/g, '') ?? NaN);
    const seconds = (d: string) => {
      const m = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(d);
      return m ? Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) : NaN;
    };
    const grace: Record<string, string> = { 'api/main.ts': 'API_SHUTDOWN_GRACE_MS', 'workers/main.ts': 'WORKER_SHUTDOWN_GRACE_MS' };
    for (const name of ['api', 'worker-shipments', 'worker-carriers', 'worker-webhooks']) {
      expect(services[name].stop_grace_period, name).toBe('30s');
      const variable = grace[entryOfService(name).file];
      const drainMs = Number(environmentOf(services[name])[variable] || configDefault(variable));
      expect(drainMs, `${name}: ${variable}`).toBeLessThan(seconds(services[name].stop_grace_period!) * 1000);
    }
  });

  it('mounts only files that exist in the repository', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const volume of s.volumes ?? []) {
        const source = typeof volume === 'string' ? volume.split(':')[0] : volume.type === 'bind' ? volume.source : undefined;
        if (source && /^\.{1,2}\//.test(source)) expect(exists(source), `${name}: ${source}`).toBe(true);
      }
    }
  });

  it('every ${VAR} is documented in deploy/.env.example, which sets every required one', () => {
    const referenced = new Set<string>();
    for (const m of COMPOSE_TEXT.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) referenced.add(m[1]);
    for (const m of COMPOSE_TEXT.matchAll(/(?<!\$)\$([A-Za-z_][A-Za-z0-9_]*)/g)) referenced.add(m[1]);
    for (const name of referenced) expect(exampleDocumented.has(name), `${name} in deploy/.env.example`).toBe(true);
    for (const m of COMPOSE_TEXT.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*):?\?/g)) {
      expect(exampleSet.get(m[1]), `${m[1]} is required: deploy/.env.example sets it`).toBeTruthy();
    }
    for (const name of exampleDocumented) expect(referenced.has(name), `${name} in .env.example is used by docker-compose.yml`).toBe(true);
  });

  it("every ${VAR} is in the README too (its Configuration and docker compose tables)", () => {
    const readme = read('README.md');
    const referenced = new Set([...COMPOSE_TEXT.matchAll(/(?<!\$)\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));
    expect(referenced.size).toBeGreaterThan(15);
    for (const name of referenced) expect(readme, name).toContain(`\`${name}\``);
  });
});

describe('docker-compose.yml: production safety (issue 13)', () => {
  it('requires every secret and every production variable (compose stops without them)', () => {
    const required = new Set([...COMPOSE_TEXT.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*):\?/g)].map((m) => m[1]));
    for (const name of [
      'SIGNING_SECRET',
      'WEBHOOK_SECRET_KEY',
      'PAYLOAD_ENCRYPTION_KEY',
      'PUBLIC_BASE_URL',
      'CARD_PROCESSOR_URL',
      'POSTGRES_PASSWORD',
      'SHIPPING_DB_PASSWORD',
      ...carrierCodes.flatMap((c) => [`CARRIER_${c.toUpperCase()}_URL`, `CARRIER_${c.toUpperCase()}_WEBHOOK_SECRET`]),
    ]) {
      expect(required.has(name), `\${${name}:?…}`).toBe(true);
    }
    for (const name of appServices.filter((n) => ['api/main.ts', 'workers/main.ts'].includes(entryOfService(n).file))) {
      const env = environmentOf(services[name]);
      for (const variable of ['PAYLOAD_ENCRYPTION_KEY', ...carrierCodes.map((c) => `CARRIER_${c.toUpperCase()}_WEBHOOK_SECRET`)]) {
        expect(env[variable], `${name}: ${variable}`).toMatch(/^\$\{[A-Z0-9_]+:\?/);
      }
      expect(env.WEBHOOK_ALLOW_PRIVATE, `${name}: WEBHOOK_ALLOW_PRIVATE stays off`).toBeUndefined();
    }
  });

  it('publishes the Temporal UI, its codec endpoint (and Temporal) on 127.0.0.1 only, the UI pointed at the codec', () => {
    const codecPort = /127\.0\.0\.1:(\d+):/.exec(interpolate(String(services.codec.ports?.[0])))?.[1];
    expect(interpolate(environmentOf(services['temporal-ui']).TEMPORAL_CODEC_ENDPOINT)).toBe(`http://localhost:${codecPort}`);
    for (const name of ['temporal-ui', 'temporal', 'codec']) {
      for (const port of services[name].ports ?? []) {
        expect(interpolate(String(port)), `${name}: ${String(port)}`).toMatch(/^127\.0\.0\.1:/);
      }
    }
  });

  it('runs the carrier simulator only in the dev profile, and nothing requires it', () => {
    expect((services['carrier-sim'] as { profiles?: string[] }).profiles).toEqual(['dev']);
    for (const [name, s] of Object.entries(services)) {
      const deps = (s.depends_on ?? {}) as Record<string, { required?: boolean }>;
      if (!Array.isArray(s.depends_on) && deps['carrier-sim']) expect(deps['carrier-sim'].required, `${name} depends on carrier-sim`).toBe(false);
      if (Array.isArray(s.depends_on)) expect(s.depends_on, name).not.toContain('carrier-sim');
    }
  });
});

describe('Temporal', () => {
  it('registers exactly the search attributes of contract/search-attributes.ts, on the app namespace', () => {
    const script = (words(services['temporal-setup'].command) ?? []).join('\n') + (words(services['temporal-setup'].entrypoint) ?? []).join('\n');
    const registered: Record<string, string> = {};
    const namespace = environmentOf(services.api).TEMPORAL_NAMESPACE || 'default';
    for (const line of script.split('\n').filter((l) => /search-attribute create/.test(l))) {
      const flag = (f: string) => new RegExp(`--${f}[ =](\\S+)`).exec(line)?.[1];
      expect(flag('namespace'), line).toBe(namespace);
      registered[flag('name')!] = flag('type')!;
    }
    expect(registered).toEqual({ ...SEARCH_ATTRIBUTES });
    expect(script, 'ignores "already exists" on a re-run').toMatch(/already exists/);
  });

  // The server services of compose and their `npm run fleet` counterparts (tools/fleet): one source of truth.
  const serverServices: Record<TemporalService, string> = {
    frontend: 'temporal',
    history: 'temporal-history',
    matching: 'temporal-matching',
    worker: 'temporal-worker',
  };
  const mountsOf = (s: Service) =>
    new Map(
      (s.volumes ?? [])
        .filter((v): v is string => typeof v === 'string')
        .map((v) => v.split(':'))
        .map(([source, target]) => [target, source] as const),
    );
  /** The names a file reads from its environment: `env "X"` in a Go template, `${X` in a shell script. */
  const templateVars = (file: string) => new Set([...read(file).matchAll(/env "([A-Z0-9_]+)"/g)].map((m) => m[1]));
  const scriptVars = (file: string) => new Set([...read(file).matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]));

  it('runs every server service as the fleet does: same arguments, server config and dynamic config', () => {
    expect(Object.keys(serverServices).sort()).toEqual([...TEMPORAL_SERVICES].sort());
    const configInRepo = `./${path.relative(ROOT, TEMPORAL_CONFIG_FILE)}`;
    const dynamicInRepo = `./${path.relative(ROOT, DYNAMIC_CONFIG_FILE)}`;
    expect(configInRepo).toBe('./deploy/temporal/config/parcel-shipping.yaml');
    expect(dynamicInRepo).toBe('./deploy/temporal/dynamicconfig.yaml');
    const templateReads = templateVars('deploy/temporal/config/parcel-shipping.yaml');
    for (const [service, name] of Object.entries(serverServices) as Array<[TemporalService, string]>) {
      const s = services[name];
      const argv = words(s.command) ?? [];
      // The fleet's arguments, with the repository's deploy/temporal where the image has /etc/temporal.
      const root = argv[argv.indexOf('--root') + 1];
      expect(argv.slice(1), name).toEqual(temporalServerArgs(service).map((a) => (a === TEMPORAL_CONFIG_ROOT ? root : a)));
      const mounts = mountsOf(s);
      expect(mounts.get(`${root}/config/parcel-shipping.yaml`), `${name} mounts the server config`).toBe(configInRepo);
      const env = environmentOf(s);
      expect(mounts.get(env.TEMPORAL_DYNAMIC_CONFIG_FILE), `${name} mounts the dynamic config it names`).toBe(dynamicInRepo);
      for (const variable of Object.keys(env)) expect(templateReads.has(variable), `${name}: the server config reads ${variable}`).toBe(true);
      expect(env.TEMPORAL_DB_HOST).toBe('postgres');
      expect(env.TEMPORAL_FRONTEND_ADDRESS).toBe('temporal:7233');
    }
    // The fleet's own environment for the template names only variables the template reads.
    const fleetEnv = temporalEnv({ host: 'h', port: 1, user: 'u', password: 'p' }, DEFAULT_TEMPORAL_PORTS);
    for (const variable of Object.keys(fleetEnv)) expect(templateReads.has(variable), `fleet: the server config reads ${variable}`).toBe(true);
    expect(fleetEnv.TEMPORAL_DYNAMIC_CONFIG_FILE).toBe(DYNAMIC_CONFIG_FILE);
    for (const name of ['temporal-ui', 'temporal-setup']) expect(environmentOf(services[name]).TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect((services['temporal-ui'].ports ?? []).map(String).some((p) => p.endsWith(':8080'))).toBe(true);
  });

  it("sets up the schema with the fleet's script, on the compose PostgreSQL", () => {
    const s = services['temporal-schema'];
    const scriptInRepo = `./${path.relative(ROOT, SCHEMA_SETUP_SCRIPT)}`;
    const argv = words(s.entrypoint) ?? [];
    expect(argv[0]).toBe('sh');
    expect(mountsOf(s).get(argv[1]), 'runs the mounted script').toBe(scriptInRepo);
    const env = environmentOf(s);
    const reads = scriptVars('deploy/temporal/setup-postgres.sh');
    for (const variable of Object.keys(env)) expect(reads.has(variable), `setup-postgres.sh reads ${variable}`).toBe(true);
    expect(env.TEMPORAL_DB_HOST).toBe('postgres');
    expect(env.TEMPORAL_DB_PASSWORD).toBe(environmentOf(services.temporal).TEMPORAL_DB_PASSWORD);
    // Its steps: create each database, set up the version tables, apply every versioned step.
    const script = read('deploy/temporal/setup-postgres.sh');
    for (const step of ['create-database', 'setup-schema -v 0.0', 'update-schema -d']) expect(script).toContain(step);
    for (const dir of ['temporal/versioned', 'visibility/versioned']) expect(script).toContain(dir);
  });

  it('has one dynamic config, with the dispatch tuning of the dev server and Worker Versioning on', () => {
    const dynamic = parse(read('deploy/temporal/dynamicconfig.yaml')) as Record<string, Array<{ value: unknown; constraints?: object }>>;
    for (const [key, values] of Object.entries(dynamic)) {
      expect(Array.isArray(values) && values.every((v) => 'value' in v), `${key}: a list of {value, constraints}`).toBe(true);
    }
    expect(dynamic['frontend.enableExecuteMultiOperation']?.[0]?.value, 'Update-With-Start').toBe(true);
    expect(dynamic['system.enableDeploymentVersions']?.[0]?.value, 'worker deployments').toBe(true);
    for (const [key, value] of Object.entries(DISPATCH_TUNING)) {
      expect(dynamic[key]?.[0]?.value, `${key}: the same dispatch tuning as the dev server`).toEqual(value);
    }
  });
});

describe('PostgreSQL', () => {
  it('creates the app database the services connect to, as the role they connect with', () => {
    const init = read('deploy/postgres/init.sql');
    const url = new URL(interpolate(environmentOf(services.api).DATABASE_URL));
    expect(init).toMatch(new RegExp(`CREATE ROLE ${url.username}\\b`, 'i'));
    expect(init).toMatch(new RegExp(`CREATE DATABASE ${url.pathname.slice(1)} OWNER ${url.username}\\b`, 'i'));
    const mounts = (services.postgres.volumes ?? []).map(String);
    expect(mounts.some((m) => m.startsWith('./deploy/postgres/init.sql:/docker-entrypoint-initdb.d/'))).toBe(true);
    for (const variable of init.matchAll(/\\getenv\s+\S+\s+([A-Z_][A-Z0-9_]*)/g)) {
      expect(environmentOf(services.postgres), `postgres gets ${variable[1]}`).toHaveProperty(variable[1]);
    }
  });
});

describe('deploy/nginx/nginx.conf', () => {
  const conf = read('deploy/nginx/nginx.conf').replace(/#.*$/gm, '');

  it('balances over the api service on its port', () => {
    const upstreams = new Map([...conf.matchAll(/upstream\s+(\S+)\s*\{([^}]*)\}/g)].map((m) => [m[1], m[2]]));
    const passes = [...conf.matchAll(/proxy_pass\s+http:\/\/([^/;\s]+)/g)].map((m) => m[1]);
    expect(passes.length).toBeGreaterThan(0);
    const apiPort = environmentOf(services.api).PORT || '3000';
    for (const target of passes) {
      const body = upstreams.get(target);
      expect(body, `proxy_pass http://${target} names an upstream`).toBeDefined();
      const servers = [...body!.matchAll(/server\s+([^\s:;]+):(\d+)/g)];
      expect(servers.length).toBeGreaterThan(0);
      for (const [, host, port] of servers) {
        expect(host).toBe('api');
        expect(port).toBe(apiPort);
      }
    }
  });

  it('is what the lb service mounts and listens on the port it publishes', () => {
    const mounts = (services.lb.volumes ?? []).map(String);
    expect(mounts.some((m) => m.startsWith('./deploy/nginx/nginx.conf:/etc/nginx/nginx.conf'))).toBe(true);
    const listen = /listen\s+(\d+)/.exec(conf)?.[1];
    const published = (services.lb.ports ?? []).map((p) => interpolate(String(p)));
    expect(published.some((p) => p.endsWith(`:${listen}`)), `lb publishes ${listen}`).toBe(true);
    expect(published.some((p) => p.startsWith('3000:')), 'the API on localhost:3000').toBe(true);
  });
});

describe('deploy/nginx/nginx.conf: what it exposes and logs', () => {
  const conf = read('deploy/nginx/nginx.conf').replace(/#.*$/gm, '');

  it('keeps /metrics and every path under it (/metrics/fleet) internal', () => {
    // A prefix location that wins over every regular expression: `location = /metrics` alone let
    // /metrics/fleet through to the API.
    const metrics = /location\s+\^~\s+\/metrics\s*\{([^}]*)\}/.exec(conf);
    expect(metrics, 'a ^~ prefix location for /metrics').not.toBeNull();
    expect(metrics![1]).toMatch(/return\s+404|deny\s+all/);
    expect(metrics![1]).not.toContain('proxy_pass');
  });

  it("hands the API the client's address through the https terminator in front, not the terminator's", () => {
    // Production needs an https terminator in front of the balancer (PUBLIC_BASE_URL is https): with
    // $remote_addr its address, the API's per-address limit was one allowance for every client.
    expect(conf).toMatch(/real_ip_header\s+X-Forwarded-For\s*;/i);
    expect(conf).toMatch(/real_ip_recursive\s+on\s*;/);
    const trusted = [...conf.matchAll(/set_real_ip_from\s+([^;\s]+)\s*;/g)].map((m) => m[1]);
    // At least the private ranges the API itself trusts by default (the compose network's).
    const apiTrusts = /:-([^}]+)\}/.exec(String(environmentOf(services.api).TRUSTED_PROXIES))![1].split(',');
    expect(trusted).toEqual(expect.arrayContaining(apiTrusts));
    // And the API still gets that one address, never a chain a client wrote.
    expect(conf).toMatch(/proxy_set_header\s+X-Forwarded-For\s+\$remote_addr\s*;/);
  });

  it('logs paths without query strings (a signed label link never reaches a log)', () => {
    const formats = new Map([...conf.matchAll(/log_format\s+(\S+)\s+((?:'[^']*'\s*)+);/g)].map((m) => [m[1], m[2]]));
    const logs = [...conf.matchAll(/access_log\s+([^;]+);/g)].map((m) => m[1].trim().split(/\s+/));
    expect(logs.length).toBeGreaterThan(0);
    for (const [target, format] of logs) {
      if (target === 'off') continue;
      expect(format, `access_log ${target} names a format (the default logs $request)`).toBeDefined();
      const text = formats.get(format);
      expect(text, `log_format ${format}`).toBeDefined();
      for (const leaky of ['$request ', '$request"', '$request_uri', '$args', '$query_string', '$is_args', '$arg_']) {
        expect(text!.includes(leaky), `log_format ${format} uses ${leaky}`).toBe(false);
      }
    }
  });
});

describe('Dockerfile', () => {
  const stageNames = dockerfile.stages.map((s) => s.name);

  it('has the deps, build and runtime stages on node:20-bookworm-slim, runtime last', () => {
    expect(stageNames).toEqual(expect.arrayContaining(['deps', 'build', 'runtime']));
    expect(runtimeStage.name).toBe('runtime');
    for (const stage of dockerfile.stages) expect(stage.base, stage.name).toMatch(/^(node:20-bookworm-slim|deps|build)$/);
    for (const stage of dockerfile.stages) {
      for (const copy of instructionsOf(stage, 'COPY')) {
        const from = /--from=(\S+)/.exec(copy)?.[1];
        if (from) expect(stageNames.slice(0, stageNames.indexOf(stage.name)), `${stage.name}: COPY --from=${from}`).toContain(from);
      }
    }
  });

  it('installs with npm ci, compiles to dist/ with the workflow bundle, and runs only scripts that exist', () => {
    const runs = (name: string) => instructionsOf(dockerfile.stages.find((s) => s.name === name)!, 'RUN').join('\n');
    expect(runs('deps')).toMatch(/\bnpm ci\b/);
    // `npm run build` is tsc into dist/ and the workflow bundle; the runtime stage runs its output.
    expect(packageJson.scripts.build).toMatch(/\btsc\b.*build-workflows/);
    expect(runs('build')).toMatch(/\bnpm run build\b/);
    expect(runs('build')).toContain('dist/workflow-bundle.js');
    expect(runs('build')).toContain('dist/api/main.js');
    for (const stage of dockerfile.stages) {
      for (const m of instructionsOf(stage, 'RUN').join('\n').matchAll(/\bnpm run (\S+)/g)) {
        expect(Object.keys(packageJson.scripts), `${stage.name}: npm run ${m[1]}`).toContain(m[1]);
      }
    }
  });

  it('runs the runtime stage as a non-root user, in production, with the API by default', () => {
    const user = instructionsOf(runtimeStage, 'USER').at(-1);
    expect(user, 'USER in the runtime stage').toBeDefined();
    expect(user!.split(':')[0]).not.toMatch(/^(root|0)$/);
    expect(instructionsOf(runtimeStage, 'ENV').join(' ')).toMatch(/\bNODE_ENV=production\b/);
    expect(instructionsOf(runtimeStage, 'EXPOSE').join(' ')).toMatch(/\b3000\b/);
    expect(imageHasHealthcheck).toBe(true);
    const healthcheck = instructionsOf(runtimeStage, 'HEALTHCHECK').at(-1)!;
    expect(healthcheck).toContain('/healthz');
    const probe = healthcheck.slice(healthcheck.indexOf('CMD') + 3).trim();
    if (probe.startsWith('[')) expect(() => JSON.parse(probe), 'HEALTHCHECK CMD exec form is JSON').not.toThrow();
    const cmd = entryOf(imageCmd);
    expect(imageCmd).toEqual(['node', 'dist/api/main.js']);
    expect(cmd.file).toBe('api/main.ts');
    expect(exists(cmd.file)).toBe(true);
  });

  it('puts tsx on PATH for the bare `tsx` commands, in the WORKDIR the entry paths are relative to', () => {
    const usesBareTsx = [imageCmd, ...appServices.map((n) => commandOf(services[n]))].some((c) => c[0] === 'tsx');
    if (!usesBareTsx) return;
    expect(instructionsOf(runtimeStage, 'ENV').join(' ')).toMatch(/PATH=\/app\/node_modules\/\.bin:/);
    expect(instructionsOf(runtimeStage, 'WORKDIR').at(-1)).toBe('/app');
  });
});

describe('.dockerignore', () => {
  const lines = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const ignored = (file: string) => {
    let result = false;
    for (const line of lines) {
      const negate = line.startsWith('!');
      const pattern = negate ? line.slice(1) : line;
      const regex = new RegExp(
        '^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '(?:.*/)?').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '(?:/.*)?$',
      );
      if (regex.test(file)) result = !negate;
    }
    return result;
  };

  it('keeps secrets, dependencies and local state out of the build context', () => {
    for (const file of ['.env', 'node_modules/x', '.git/HEAD', '.data/x', 'dist/workflow-bundle.js']) {
      expect(ignored(file), file).toBe(true);
    }
  });

  it('keeps what the image builds and runs', () => {
    for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'db/migrations/0000_init.sql']) {
      expect(ignored(file), file).toBe(false);
    }
    for (const name of appServices) {
      const file = entryOfService(name).file;
      expect(ignored(file), `${name}: ${file}`).toBe(false);
    }
  });
});

// `docker compose config` parses and validates without a daemon; registered only where the CLI is.
const composeCli = (() => {
  for (const cli of [['docker', 'compose'], ['docker-compose']]) {
    const probe = spawnSync(cli[0], [...cli.slice(1), 'version'], { encoding: 'utf8', timeout: 15_000 });
    if (probe.status === 0) return cli;
  }
  return undefined;
})();

if (composeCli) {
  describe('docker compose CLI', () => {
    it('accepts docker-compose.yml with deploy/.env.example (config -q)', () => {
      const result = spawnSync(
        composeCli[0],
        [...composeCli.slice(1), '-f', 'docker-compose.yml', '--env-file', 'deploy/.env.example', 'config', '-q'],
        { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
      );
      expect(result.status, result.stderr).toBe(0);
    });
  });
}
