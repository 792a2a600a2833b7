/**
 * The service's configuration: the environment read against the schema of schema.ts (types,
 * defaults, bounds) and, with NODE_ENV=production, the rules of production.ts. Entry points call
 * `loadConfig()` and pass the plain object down; nothing else reads the environment. Fails fast and
 * names every variable that is wrong, with its bound.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { carrierSettingVariable, type CarrierSettings } from '../domain/index.js';
import { carrierVariable, CARRIER_VARIABLES, CONFIG_VARIABLES, realCarrierVariables } from './schema.js';
import { processEnv, type Env } from './env.js';
import { DEV_PAYLOAD_ENCRYPTION_KEY, DEV_SIGNING_SECRET, DEV_WEBHOOK_SECRET_KEY, partialCarrierProblems, productionProblems, requiredCarrierVariables } from './production.js';
import { checkSettings, ConfigError, parseSettings } from './settings.js';

const ConfigVariables = Type.Object(CONFIG_VARIABLES);
type Variables = Static<typeof ConfigVariables>;

export interface ParseOptions {
  /** Codes of every registered carrier: production requires each one's URL and webhook secret. */
  carriers?: readonly string[];
  /**
   * The real carriers' settings as their modules declare them (carriers/registry.ts, handed in by
   * runtime/): each carrier's are read, and it is on only when all of its required ones are set.
   */
  realCarriers?: readonly CarrierSettings[];
}

/** The schema, plus the real carriers' settings and the per-carrier variables this environment sets (CARRIER_<CODE>_URL, …). */
function schemaFor(env: Env, realCarriers: readonly CarrierSettings[]) {
  const perCarrier: Record<string, TSchema> = {};
  for (const name of Object.keys(env)) {
    const variable = carrierVariable(name);
    if (variable) perCarrier[name] = Type.Optional(CARRIER_VARIABLES[variable.suffix]);
  }
  return Type.Object({ ...CONFIG_VARIABLES, ...realCarrierVariables(realCarriers), ...perCarrier });
}

/**
 * The settings of each real carrier whose URL and settings are all set (the others stay off), by
 * carrier code and variable suffix. Serialized, every secret shows as `[redacted]`, so a
 * configuration logged by mistake never carries one.
 */
function realCarrierCredentials(all: Record<string, unknown>, carriers: readonly CarrierSettings[]): Record<string, Readonly<Record<string, string>>> {
  const out: Record<string, Readonly<Record<string, string>>> = {};
  const isSet = (name: string) => typeof all[name] === 'string' && all[name] !== '';
  for (const carrier of carriers) {
    if (!requiredCarrierVariables(carrier).every(isSet)) continue;
    const values: Record<string, string> = {};
    const shown: Record<string, string> = {};
    for (const { suffix, secret } of carrier.settings) {
      const name = carrierSettingVariable(carrier.code, suffix);
      if (!isSet(name)) continue;
      values[suffix] = all[name] as string;
      shown[suffix] = secret ? '[redacted]' : values[suffix];
    }
    Object.defineProperty(values, 'toJSON', { value: () => shown, enumerable: false });
    out[carrier.code] = Object.freeze(values);
  }
  return out;
}

/** `{ acme: value }` of every CARRIER_<CODE>_<suffix> that is set. */
function byCarrier<T>(values: Record<string, unknown>, suffix: string): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(values)) {
    const variable = carrierVariable(name);
    if (variable?.suffix === suffix && value !== undefined) out[variable.code] = value as T;
  }
  return out;
}

export function parseConfig(env: Env, options: ParseOptions = {}): Config {
  const production = env.NODE_ENV === 'production';
  const realCarriers = options.realCarriers ?? [];
  const schema = schemaFor(env, realCarriers);
  if (production) {
    const refused = new Map([...productionProblems(env, options.carriers ?? []), ...partialCarrierProblems(env, realCarriers)]);
    if (refused.size) {
      // With every invalid value too, so that one restart fixes them all; a variable once only.
      const invalid = [...checkSettings(schema, env).problems].filter(([name]) => !refused.has(name)).map(([, problem]) => problem);
      const problems = [...refused.values(), ...invalid];
      throw new ConfigError(`refusing to start in production:\n  - ${problems.join('\n  - ')}`);
    }
  }
  const values = parseSettings(schema, env);
  return toConfig(values as Variables, values, production, realCarriers);
}

/** The configuration of this process, from its environment (throws a ConfigError naming each problem). */
export function loadConfig(options: ParseOptions = {}): Config {
  return parseConfig(processEnv(), options);
}

/** The configuration of an entry point's process, or its exit (code 2) with a message naming what is wrong. */
export function loadConfigOrExit(options: ParseOptions = {}): Config {
  try {
    return loadConfig(options);
  } catch (err) {
    process.stderr.write(`configuration error: ${(err as Error).message}\n`);
    process.exit(2);
  }
}

/** The simulator's origin, for carriers whose URL is not overridden. */
export function carrierSimUrl(config: { carrierSimPort: number }): string {
  return `http://127.0.0.1:${config.carrierSimPort}`;
}

const withoutSlash = (url: string) => url.replace(/\/$/, '');

/** Where each carrier is and how it is called: URLs, credentials, deadlines and rates. */
function carrierSettings(v: Variables, all: Record<string, unknown>, realCarriers: readonly CarrierSettings[]) {
  return {
    carrierSimPort: v.CARRIER_SIM_PORT,
    /** Overrides of a carrier's base URL: CARRIER_<CODE>_URL. */
    carrierUrls: byCarrier<string>(all, 'URL'),
    /**
     * The real carriers' settings (CARRIER_<CODE>_<SUFFIX>, as their modules declare them), by carrier code and
     * variable suffix, for each one set up completely: the registry enables exactly these.
     */
    carrierCredentials: realCarrierCredentials(all, realCarriers),
    carrierTimeoutMs: v.CARRIER_TIMEOUT_MS,
    /** Settle window of carriers without idempotency keys (SwiftPost); absent: the adapter's own. */
    carrierSettleMs: v.CARRIER_SETTLE_MS as number | undefined,
    /** Overrides of a carrier's fleet-wide requests per second: CARRIER_<CODE>_RPS. */
    carrierRateLimits: byCarrier<number>(all, 'RPS'),
    /** Percent of each carrier's rate given to tracking polls on their own queue (0: one shared queue). */
    carrierTrackingSharePercent: v.CARRIER_TRACKING_SHARE,
  };
}

/** Worker tuning (per process): concurrency, cached workflows, and the drain time on SIGTERM. */
function workerSettings(v: Variables, production: boolean) {
  return {
    maxConcurrentActivities: v.WORKER_MAX_CONCURRENT_ACTIVITIES,
    maxConcurrentWorkflowTasks: v.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
    maxCachedWorkflows: v.WORKER_MAX_CACHED_WORKFLOWS,
    shutdownGraceMs: v.WORKER_SHUTDOWN_GRACE_MS,
    /** Where a worker serves Prometheus metrics (0: not served). */
    metricsPort: v.WORKER_METRICS_PORT,
    /** The prebuilt workflow bundle (`npm run build:workflows`); absent: bundled from source at start. */
    workflowBundlePath: v.WORKFLOW_BUNDLE_PATH ?? (production ? 'dist/workflow-bundle.js' : undefined),
    /**
     * Worker Versioning (README: Deploying a new worker build): with a build id, every worker of
     * this process polls as version `<deploymentName>.<buildId>` of the worker deployment, and
     * workflows move to the deployment's current version at their next task (AUTO_UPGRADE).
     * Without one, workers are unversioned.
     */
    deploymentName: v.WORKER_DEPLOYMENT_NAME,
    buildId: v.WORKER_BUILD_ID as string | undefined,
  };
}

/** OpenTelemetry traces (runtime/tracing.ts): on when an OTLP endpoint is named and the SDK is not disabled. */
function tracingSettings(v: Variables) {
  return {
    enabled:
      v.OTEL_SDK_DISABLED !== 'true' &&
      v.OTEL_TRACES_EXPORTER !== 'none' &&
      Boolean(v.OTEL_EXPORTER_OTLP_ENDPOINT || v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    serviceName: v.OTEL_SERVICE_NAME as string | undefined,
  };
}

function toConfig(v: Variables, all: Record<string, unknown>, production: boolean, realCarriers: readonly CarrierSettings[]) {
  const [count, seconds] = v.ADDRESS_RATE_LIMIT.split('/').map(Number);
  return {
    port: v.PORT,
    host: v.HOST,
    dataDir: v.DATA_DIR,
    databaseUrl: v.DATABASE_URL,
    temporalAddress: v.TEMPORAL_ADDRESS,
    temporalNamespace: v.TEMPORAL_NAMESPACE,
    /** Where operators open the Temporal UI (links printed by `npm run ops`). */
    temporalUiUrl: withoutSlash(v.TEMPORAL_UI_URL),
    publicBaseUrl: withoutSlash(v.PUBLIC_BASE_URL ?? `http://localhost:${v.PORT}`),
    purchaseWaitMs: v.PURCHASE_WAIT_MS,
    /** How long a purchase may keep trying an unreachable carrier before it fails cleanly. */
    purchaseDeadlineMs: v.PURCHASE_DEADLINE_MS,
    labelUrlTtlSeconds: v.LABEL_URL_TTL_SECONDS,
    webhookAllowPrivate: v.WEBHOOK_ALLOW_PRIVATE === '1',
    logLevel: v.LOG_LEVEL as string,
    ...carrierSettings(v, all, realCarriers),
    cardProcessorUrl: v.CARD_PROCESSOR_URL ?? `${carrierSimUrl({ carrierSimPort: v.CARRIER_SIM_PORT })}/cardpay/v1`,
    trustedProxies: v.TRUSTED_PROXIES,
    taskQueuePrefix: v.TASK_QUEUE_PREFIX,
    signingSecret: v.SIGNING_SECRET ?? DEV_SIGNING_SECRET,
    /** Key (32 bytes, base64 or hex) that encrypts webhook signing secrets at rest. */
    webhookSecretKey: v.WEBHOOK_SECRET_KEY ?? DEV_WEBHOOK_SECRET_KEY,
    /** The floor and ceiling (ms) of every wait of the tracking schedule (domain/tracking-schedule.ts). */
    trackingPollMinMs: v.TRACKING_POLL_MIN_MS,
    trackingPollMaxMs: v.TRACKING_POLL_MAX_MS,
    /** Continue-as-new after this many polls (tests force it early); otherwise when Temporal suggests. */
    trackingContinueAsNewAfterPolls: v.TRACKING_CONTINUE_AS_NEW_AFTER as number | undefined,
    /** Shared secrets carriers use to push scans to POST /carrier-webhooks/{carrier}. */
    carrierWebhookSecrets: byCarrier<string>(all, 'WEBHOOK_SECRET'),
    worker: workerSettings(v, production),
    /** How long the API finishes in-flight requests after SIGTERM before it exits. */
    apiShutdownGraceMs: v.API_SHUTDOWN_GRACE_MS,
    /** How long a request may take to arrive whole, headers and body (contract: 408 request_timeout). */
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    /** The Temporal Schedule that fails pending shipments whose workflow never started (0: none). */
    orphanSweep: { intervalMs: v.ORPHAN_SWEEP_INTERVAL_MS, olderThanMs: v.ORPHAN_SWEEP_AFTER_MS },
    /** After a failed purchase that may have bought, how long to keep looking for a stray label. */
    strayLabelSettleMs: v.STRAY_LABEL_SETTLE_MS,
    /** Connections in each process's PostgreSQL pool. */
    databasePoolMax: v.DATABASE_POOL_MAX,
    /** NODE_ENV=production: the rules of config/production.ts hold, and nothing falls back to the simulator. */
    production,
    /** AES-256-GCM key (32 bytes, base64) of the Temporal payload codec; older keys still decrypt. */
    payloadEncryptionKey: v.PAYLOAD_ENCRYPTION_KEY ?? DEV_PAYLOAD_ENCRYPTION_KEY,
    payloadDecryptionKeys: v.PAYLOAD_DECRYPTION_KEYS,
    /** Refused and unauthenticated requests one client address may make per window (across instances). */
    addressRateLimit: { count, seconds },
    /**
     * Webhook attempts one account may have in flight per worker process: the rest wait their turn, so
     * one account's slow or failing endpoints cannot take every delivery slot from the others.
     */
    webhookAccountConcurrency: v.WEBHOOK_ACCOUNT_CONCURRENCY,
    /** Where `npm run codec-server` (the Temporal UI's codec endpoint) listens. */
    codecPort: v.CODEC_PORT,
    codecHost: v.CODEC_HOST,
    tracing: tracingSettings(v),
  };
}

export type Config = ReturnType<typeof toConfig>;
