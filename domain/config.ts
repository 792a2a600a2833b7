/**
 * The one place configuration is read and validated. Entry points call `parseConfig(process.env)`
 * and pass the plain object down; nothing else reads the environment. Fails fast and says why.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  temporalAddress: string | undefined;
  temporalNamespace: string;
  /** Where operators open the Temporal UI (links printed by `npm run ops`). */
  temporalUiUrl: string;
  publicBaseUrl: string;
  purchaseWaitMs: number;
  /** How long a purchase may keep trying an unreachable carrier before it fails cleanly. */
  purchaseDeadlineMs: number;
  labelUrlTtlSeconds: number;
  webhookAllowPrivate: boolean;
  logLevel: string;
  carrierSimPort: number;
  /** Overrides of a carrier's base URL: CARRIER_<CODE>_URL. */
  carrierUrls: Record<string, string>;
  carrierTimeoutMs: number;
  /** Overrides of a carrier's fleet-wide requests per second: CARRIER_<CODE>_RPS. */
  carrierRateLimits: Record<string, number>;
  cardProcessorUrl: string;
  trustedProxies: string[];
  taskQueuePrefix: string;
  signingSecret: string;
  /** Key (32 bytes, base64 or hex) that encrypts webhook signing secrets at rest. */
  webhookSecretKey: string;
  /** Tracking poll intervals in ms: first poll after purchase, then growing to the maximum. */
  trackingPollMinMs: number;
  trackingPollMaxMs: number;
  /** Continue-as-new after this many polls (tests force it early); otherwise when Temporal suggests. */
  trackingContinueAsNewAfterPolls: number | undefined;
  /** Shared secrets carriers use to push scans to POST /carrier-webhooks/{carrier}. */
  carrierWebhookSecrets: Record<string, string>;
  /** Worker tuning (per process): concurrency, cached workflows, and the drain time on SIGTERM. */
  worker: {
    maxConcurrentActivities: number;
    maxConcurrentWorkflowTasks: number;
    maxCachedWorkflows: number;
    shutdownGraceMs: number;
    /** Where a worker serves Prometheus metrics (0: not served). */
    metricsPort: number;
    /** The prebuilt workflow bundle (`npm run build:workflows`); absent: bundled from source at start. */
    workflowBundlePath: string | undefined;
    /**
     * Worker Versioning (README: Deploying a new worker build): with a build id, every worker of
     * this process polls as version `<deploymentName>.<buildId>` of the worker deployment, and
     * workflows move to the deployment's current version at their next task (AUTO_UPGRADE).
     * Without one, workers are unversioned.
     */
    deploymentName: string;
    buildId: string | undefined;
  };
  /** How long the API finishes in-flight requests after SIGTERM before it exits. */
  apiShutdownGraceMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new ConfigError(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return Number(raw);
}

export function parseConfig(env: Env): Config {
  const port = int(env, 'PORT', 3000);
  const carrierSimPort = int(env, 'CARRIER_SIM_PORT', 4010);
  const simUrl = `http://127.0.0.1:${carrierSimPort}`;
  const carrierUrls: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const m = /^CARRIER_([A-Z0-9]+)_URL$/.exec(name);
    if (m && value) carrierUrls[m[1].toLowerCase()] = value;
  }
  const carrierRateLimits: Record<string, number> = {};
  for (const name of Object.keys(env)) {
    const m = /^CARRIER_([A-Z0-9]+)_RPS$/.exec(name);
    if (m) carrierRateLimits[m[1].toLowerCase()] = int(env, name, 1, 1);
  }
  const carrierWebhookSecrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const m = /^CARRIER_([A-Z0-9]+)_WEBHOOK_SECRET$/.exec(name);
    if (m && value) carrierWebhookSecrets[m[1].toLowerCase()] = value;
  }
  const level = env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be a pino level, got "${level}"`);
  }
  const production = env.NODE_ENV === 'production';
  const signingSecret = env.SIGNING_SECRET ?? (production ? '' : 'dev-only-signing-secret-change-me');
  if (signingSecret.length < 16) throw new ConfigError('SIGNING_SECRET must be set (16 characters at least) in production');
  if (production && !env.WEBHOOK_SECRET_KEY) throw new ConfigError('WEBHOOK_SECRET_KEY must be set in production');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir: env.DATA_DIR ?? '.data',
    databaseUrl: env.DATABASE_URL || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE ?? 'default',
    temporalUiUrl: (env.TEMPORAL_UI_URL ?? 'http://localhost:8233').replace(/\/$/, ''),
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/$/, ''),
    purchaseWaitMs: int(env, 'PURCHASE_WAIT_MS', 20_000),
    purchaseDeadlineMs: int(env, 'PURCHASE_DEADLINE_MS', 15 * 60_000, 1000),
    labelUrlTtlSeconds: int(env, 'LABEL_URL_TTL_SECONDS', 300, 1),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1',
    logLevel: level,
    carrierSimPort,
    carrierUrls,
    carrierTimeoutMs: int(env, 'CARRIER_TIMEOUT_MS', 5000, 100),
    carrierRateLimits,
    cardProcessorUrl: env.CARD_PROCESSOR_URL ?? `${simUrl}/cardpay/v1`,
    trustedProxies: (env.TRUSTED_PROXIES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    taskQueuePrefix: env.TASK_QUEUE_PREFIX ?? '',
    signingSecret,
    webhookSecretKey: env.WEBHOOK_SECRET_KEY ?? (production ? '' : 'ZGV2LW9ubHktd2ViaG9vay1zZWNyZXQta2V5LTMyYiE='),
    trackingPollMinMs: int(env, 'TRACKING_POLL_MIN_MS', 15 * 60_000, 10),
    trackingPollMaxMs: int(env, 'TRACKING_POLL_MAX_MS', 12 * 3600_000, 10),
    trackingContinueAsNewAfterPolls: env.TRACKING_CONTINUE_AS_NEW_AFTER
      ? int(env, 'TRACKING_CONTINUE_AS_NEW_AFTER', 0, 1)
      : undefined,
    carrierWebhookSecrets,
    worker: {
      maxConcurrentActivities: int(env, 'WORKER_MAX_CONCURRENT_ACTIVITIES', 100, 1),
      maxConcurrentWorkflowTasks: int(env, 'WORKER_MAX_CONCURRENT_WORKFLOW_TASKS', 40, 2),
      maxCachedWorkflows: int(env, 'WORKER_MAX_CACHED_WORKFLOWS', 1000, 0),
      shutdownGraceMs: int(env, 'WORKER_SHUTDOWN_GRACE_MS', 30_000),
      metricsPort: int(env, 'WORKER_METRICS_PORT', 0),
      // Production loads the bundle built at build time; development bundles the source it has.
      workflowBundlePath: env.WORKFLOW_BUNDLE_PATH || (production ? 'dist/workflow-bundle.js' : undefined),
      deploymentName: env.WORKER_DEPLOYMENT_NAME || 'parcel-shipping',
      buildId: env.WORKER_BUILD_ID || undefined,
    },
    apiShutdownGraceMs: int(env, 'API_SHUTDOWN_GRACE_MS', 30_000),
  };
}

/** The simulator's origin, for carriers whose URL is not overridden. */
export function carrierSimUrl(config: Pick<Config, 'carrierSimPort'>): string {
  return `http://127.0.0.1:${config.carrierSimPort}`;
}
