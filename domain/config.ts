/**
 * The one place configuration is read and validated. Entry points call `parseConfig(process.env)`
 * and pass the plain object down; nothing else reads the environment. Fails fast and says why.
 */
import { decodeKey32, DEV_PAYLOAD_ENCRYPTION_KEY, DEV_SIGNING_SECRET, DEV_WEBHOOK_SECRET_KEY, productionProblems } from './production.js';

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
  /** Settle window of carriers without idempotency keys (SwiftPost); absent: the adapter's own. */
  carrierSettleMs?: number;
  /** Overrides of a carrier's fleet-wide requests per second: CARRIER_<CODE>_RPS. */
  carrierRateLimits: Record<string, number>;
  /** Percent of each carrier's rate given to tracking polls on their own queue (0: one shared queue). */
  carrierTrackingSharePercent: number;
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
     * Worker Versioning (docs/operators-guide.md#deploying-a-new-worker-build-worker-versioning): with a build id, every worker of
     * this process polls as version `<deploymentName>.<buildId>` of the worker deployment, and
     * workflows move to the deployment's current version at their next task (AUTO_UPGRADE).
     * Without one, workers are unversioned.
     */
    deploymentName: string;
    buildId: string | undefined;
  };
  /** How long the API finishes in-flight requests after SIGTERM before it exits. */
  apiShutdownGraceMs: number;
  /** The Temporal Schedule that fails pending shipments whose workflow never started (0: none). */
  orphanSweep: { intervalMs: number; olderThanMs: number };
  /** After a failed purchase that may have bought, how long to keep looking for a stray label. */
  strayLabelSettleMs: number;
  /** Connections in each process's PostgreSQL pool. */
  databasePoolMax: number;
  /** NODE_ENV=production: the rules of domain/production.ts hold, and nothing falls back to the simulator. */
  production: boolean;
  /** AES-256-GCM key (32 bytes, base64) of the Temporal payload codec; older keys still decrypt. */
  payloadEncryptionKey: string;
  payloadDecryptionKeys: string[];
  /** Refused and unauthenticated requests one client address may make per window (across instances). */
  addressRateLimit: { count: number; seconds: number };
  /**
   * Webhook attempts one account may have in flight per worker process: the rest wait their turn, so
   * one account's slow or failing endpoints cannot take every delivery slot from the others.
   */
  webhookAccountConcurrency: number;
  /** Where `npm run codec-server` (the Temporal UI's codec endpoint) listens. */
  codecPort: number;
  codecHost: string;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new ConfigError(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return Number(raw);
}

function percent(env: Env, name: string, fallback: number, max: number): number {
  const value = int(env, name, fallback);
  if (value > max) throw new ConfigError(`${name} must be a whole number from 0 to ${max}, got "${env[name]}"`);
  return value;
}

export interface ParseOptions {
  /** Codes of every registered carrier: production requires each one's URL and webhook secret. */
  carriers?: readonly string[];
}

export function parseConfig(env: Env, options: ParseOptions = {}): Config {
  if (env.NODE_ENV === 'production') {
    const problems = productionProblems(env, options.carriers ?? []);
    if (problems.length) throw new ConfigError(`refusing to start in production:\n  - ${problems.join('\n  - ')}`);
  }
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
  const signingSecret = env.SIGNING_SECRET ?? (production ? '' : DEV_SIGNING_SECRET);
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
    carrierSettleMs: env.CARRIER_SETTLE_MS ? int(env, 'CARRIER_SETTLE_MS', 0, 100) : undefined,
    carrierRateLimits,
    carrierTrackingSharePercent: percent(env, 'CARRIER_TRACKING_SHARE', 25, 90),
    cardProcessorUrl: env.CARD_PROCESSOR_URL ?? `${simUrl}/cardpay/v1`,
    trustedProxies: (env.TRUSTED_PROXIES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    taskQueuePrefix: env.TASK_QUEUE_PREFIX ?? '',
    signingSecret,
    webhookSecretKey: env.WEBHOOK_SECRET_KEY ?? (production ? '' : DEV_WEBHOOK_SECRET_KEY),
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
    orphanSweep: {
      intervalMs: int(env, 'ORPHAN_SWEEP_INTERVAL_MS', 60_000),
      // Far longer than an API takes from recording a purchase to starting its workflow.
      olderThanMs: int(env, 'ORPHAN_SWEEP_AFTER_MS', 120_000, 1000),
    },
    databasePoolMax: int(env, 'DATABASE_POOL_MAX', 20, 1),
    strayLabelSettleMs: int(env, 'STRAY_LABEL_SETTLE_MS', 2 * 60_000),
    production,
    ...payloadKeys(env, production),
    addressRateLimit: ratePolicy(env, 'ADDRESS_RATE_LIMIT', { count: 100, seconds: 10 }),
    webhookAccountConcurrency: int(env, 'WEBHOOK_ACCOUNT_CONCURRENCY', 8, 1),
    codecPort: int(env, 'CODEC_PORT', 8888),
    codecHost: env.CODEC_HOST ?? '127.0.0.1',
  };
}

function payloadKeys(env: Env, production: boolean) {
  const payloadEncryptionKey = env.PAYLOAD_ENCRYPTION_KEY || (production ? '' : DEV_PAYLOAD_ENCRYPTION_KEY);
  if (!decodeKey32(payloadEncryptionKey)) throw new ConfigError('PAYLOAD_ENCRYPTION_KEY must be 32 bytes, base64');
  const payloadDecryptionKeys = (env.PAYLOAD_DECRYPTION_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  for (const key of payloadDecryptionKeys) {
    if (!decodeKey32(key)) throw new ConfigError('PAYLOAD_DECRYPTION_KEYS must list keys of 32 bytes, base64, separated by commas');
  }
  return { payloadEncryptionKey, payloadDecryptionKeys };
}

/** `<count>/<seconds>`, e.g. `100/10`. */
function ratePolicy(env: Env, name: string, fallback: { count: number; seconds: number }) {
  const raw = env[name];
  if (!raw) return fallback;
  const m = /^(\d+)\/(\d+)$/.exec(raw);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new ConfigError(`${name} must look like 100/10 (requests/seconds), got "${raw}"`);
  return { count: Number(m[1]), seconds: Number(m[2]) };
}

/** The simulator's origin, for carriers whose URL is not overridden. */
export function carrierSimUrl(config: Pick<Config, 'carrierSimPort'>): string {
  return `http://127.0.0.1:${config.carrierSimPort}`;
}
