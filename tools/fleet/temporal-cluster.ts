// The Temporal cluster of `npm run fleet`: Temporal's databases on PostgreSQL (set up and upgraded by
// deploy/temporal/setup-postgres.sh, the script docker-compose.yml runs too), then one
// `temporal-server` process per service on deploy/temporal/config/parcel-shipping.yaml, then the
// namespace and our search attributes.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { childEnv } from '../../config/index.js';
import { sleep, run, tail, type Log } from '../temporal/process-utils.js';
import type { TemporalServerBinaries } from '../temporal/server.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** `--root` of temporal-server; the config is `<root>/config/<env>.yaml`. */
export const TEMPORAL_CONFIG_ROOT = path.join(REPO_ROOT, 'deploy', 'temporal');
export const TEMPORAL_CONFIG_ENV = 'parcel-shipping';
export const TEMPORAL_CONFIG_FILE = path.join(TEMPORAL_CONFIG_ROOT, 'config', `${TEMPORAL_CONFIG_ENV}.yaml`);
export const DYNAMIC_CONFIG_FILE = path.join(TEMPORAL_CONFIG_ROOT, 'dynamicconfig.yaml');
export const SCHEMA_SETUP_SCRIPT = path.join(TEMPORAL_CONFIG_ROOT, 'setup-postgres.sh');

/** The server's services, each its own process (`start --service <name>`). */
export const TEMPORAL_SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];

/**
 * The arguments every service process runs with (docker-compose.yml runs the same, test/deploy
 * checks); without a service, one process runs all four.
 */
export function temporalServerArgs(service?: TemporalService): string[] {
  return ['--root', TEMPORAL_CONFIG_ROOT, '--config', 'config', '--env', TEMPORAL_CONFIG_ENV, '--allow-no-auth', 'start', ...(service ? ['--service', service] : [])];
}

export interface TemporalDb {
  host: string;
  port: number;
  user: string;
  password: string;
}

export function temporalDbFromUrl(url: string): TemporalDb {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

/** The environment of the config template (deploy/temporal/config/parcel-shipping.yaml) for one cluster. */
export function temporalEnv(db: TemporalDb, ports: TemporalPorts, logLevel = 'warn'): Record<string, string> {
  return {
    TEMPORAL_DB_HOST: db.host,
    TEMPORAL_DB_PORT: String(db.port),
    TEMPORAL_DB_USER: db.user,
    TEMPORAL_DB_PASSWORD: db.password,
    TEMPORAL_DB_MAX_CONNS: '10',
    TEMPORAL_HISTORY_SHARDS: '4',
    TEMPORAL_BIND_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    TEMPORAL_FRONTEND_PORT: String(ports.frontend),
    TEMPORAL_FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    TEMPORAL_FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    TEMPORAL_HISTORY_PORT: String(ports.history),
    TEMPORAL_HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    TEMPORAL_MATCHING_PORT: String(ports.matching),
    TEMPORAL_MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    TEMPORAL_WORKER_PORT: String(ports.worker),
    TEMPORAL_WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    TEMPORAL_DYNAMIC_CONFIG_FILE: DYNAMIC_CONFIG_FILE,
    TEMPORAL_LOG_LEVEL: logLevel,
  };
}

export interface TemporalPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/** The config template's defaults (a single cluster per machine, like the compose file's). */
export const DEFAULT_TEMPORAL_PORTS: TemporalPorts = {
  frontend: 7233,
  frontendHttp: 7243,
  frontendMembership: 6933,
  history: 7234,
  historyMembership: 6934,
  matching: 7235,
  matchingMembership: 6935,
  worker: 7239,
  workerMembership: 6939,
};

export function grpcPort(ports: TemporalPorts, service: TemporalService): number {
  return ports[service];
}

/** Runs deploy/temporal/setup-postgres.sh with our sql tool and schema: both databases exist and are current. */
export async function setupTemporalSchema(binaries: TemporalServerBinaries, db: TemporalDb, log: Log): Promise<void> {
  const res = await run('sh', [SCHEMA_SETUP_SCRIPT], {
    env: childEnv({
      SQL_TOOL: binaries.sqlTool,
      SCHEMA_DIR: binaries.schemaDir,
      TEMPORAL_DB_HOST: db.host,
      TEMPORAL_DB_PORT: String(db.port),
      TEMPORAL_DB_USER: db.user,
      TEMPORAL_DB_PASSWORD: db.password,
    }),
    timeoutMs: 10 * 60_000,
  });
  if (res.code !== 0) {
    throw new Error(`Temporal's schema setup failed (exit ${res.code ?? res.signal}):\n${tail(`${res.stdout}${res.stderr}`, 20)}`);
  }
  for (const line of res.stdout.split('\n')) if (/^database/.test(line)) log(line);
}

/** temporal.api.enums.v1.IndexedValueType */
const INDEXED_VALUE_TYPE: Record<string, number> = { Text: 1, Keyword: 2, Int: 3, Double: 4, Bool: 5, Datetime: 6, KeywordList: 7 };

/**
 * Waits for the frontend, registers the namespace (7 days' retention) and the search attributes if
 * missing, and resolves once the namespace is usable. Idempotent: a second run finds them there.
 */
export async function prepareNamespace(opts: {
  address: string;
  namespace: string;
  searchAttributes: Record<string, string>;
  timeoutMs: number;
  alive: () => string | undefined;
  log: Log;
}): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    const dead = opts.alive();
    if (dead) throw new Error(dead);
    if (Date.now() > deadline) throw new Error(`the Temporal cluster did not get ready on ${opts.address}: ${last}`);
    let connection: Connection | undefined;
    try {
      connection = await Connection.connect({ address: opts.address, connectTimeout: '2s' });
      const svc = connection.workflowService;
      try {
        await svc.describeNamespace({ namespace: opts.namespace });
      } catch {
        await svc
          .registerNamespace({ namespace: opts.namespace, workflowExecutionRetentionPeriod: msToTs(7 * 24 * 3600 * 1000) })
          .catch((e: Error) => {
            if (!/already/i.test(e.message)) throw e;
          });
        opts.log(`registered the namespace ${opts.namespace}`);
        await svc.describeNamespace({ namespace: opts.namespace });
      }
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: opts.namespace });
      const missing = Object.entries(opts.searchAttributes).filter(([name]) => customAttributes?.[name] === undefined);
      if (missing.length) {
        await connection.operatorService
          .addSearchAttributes({
            namespace: opts.namespace,
            searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, INDEXED_VALUE_TYPE[type]])),
          })
          .catch((e: Error) => {
            if (!/already/i.test(e.message)) throw e;
          });
        opts.log(`registered the search attributes ${missing.map(([n]) => n).join(', ')}`);
        last = 'search attributes just registered';
        continue;
      }
      // Every service knows the namespace once a list through visibility works.
      await svc.listWorkflowExecutions({ namespace: opts.namespace, pageSize: 1 });
      return;
    } catch (e) {
      last = (e as Error).message;
    } finally {
      await connection?.close().catch(() => undefined);
    }
    await sleep(500);
  }
}

/** Makes `buildId` the deployment's current version (Worker Versioning) and waits until matching applies it. */
export async function setCurrentDeploymentVersion(connection: Connection, namespace: string, deploymentName: string, buildId: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  let last = '';
  for (;;) {
    try {
      await connection.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName, buildId, identity: 'npm run fleet' });
      const { workerDeploymentInfo: info } = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName });
      const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
      // 1: ROUTING_CONFIG_UPDATE_STATE_IN_PROGRESS (task queues still being told; 1.29 reports 0).
      if (current === buildId && Number(info?.routingConfigUpdateState) !== 1) return;
      last = `current ${current ?? 'none'}, routing update state ${String(info?.routingConfigUpdateState)}`;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`could not make build ${buildId} current: ${last}`);
    await sleep(500);
  }
}
