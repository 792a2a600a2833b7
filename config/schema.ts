/**
 * Every environment variable the service reads, once: type, default, bounds and meaning (README:
 * Configuration). config.ts turns the values into the `Config` object; production.ts adds the
 * production rules. Unset and empty are the same: the default applies.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { carrierSettingVariable, type CarrierSettings } from '../domain/index.js';
import { KEY32_PATTERN, setting } from './settings.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables shared with the tooling's schema (tools/tooling-config.ts). */
export const SHARED_VARIABLES = {
  DATA_DIR: setting.text({ default: '.data', description: 'embedded PostgreSQL, the dev server SQLite file and other local state' }),
  DATABASE_URL: Type.Optional(setting.text({ description: 'use this PostgreSQL instead of the embedded one', secret: true })),
  CARRIER_SIM_PORT: setting.port(4010, 'port of the carrier simulator that `npm start` runs and the carriers default to'),
  NODE_ENV: Type.Optional(setting.text({ description: '`production`: the rules of config/production.ts hold' })),
};

/**
 * Each real carrier's settings beside its `CARRIER_<CODE>_URL` (the origin or server URL its
 * document names), as variables. The carriers declare them (`CarrierModule.settings`)
 * and the entry points hand the declarations in (ParseOptions.realCarriers): config/ names no carrier.
 */
export function realCarrierVariables(carriers: readonly CarrierSettings[]): Record<string, TSchema> {
  return Object.fromEntries(
    carriers.flatMap(({ code, settings }) =>
      settings.map(({ suffix, secret, description }) => [
        carrierSettingVariable(code, suffix),
        Type.Optional(setting.text({ description: `${code.toUpperCase()}: ${description}`, ...(secret ? { secret: true } : {}) })),
      ]),
    ),
  );
}

export const CONFIG_VARIABLES = {
  ...SHARED_VARIABLES,
  PORT: setting.port(3000, 'API port'),
  HOST: setting.text({ default: '0.0.0.0', description: 'API bind address' }),
  TEMPORAL_ADDRESS: Type.Optional(setting.text({ description: 'use this Temporal instead of the dev server' })),
  TEMPORAL_NAMESPACE: setting.text({ default: 'default', description: 'Temporal namespace' }),
  TEMPORAL_UI_URL: setting.url({ default: 'http://localhost:8233', description: 'where operators open the Temporal UI' }),
  PUBLIC_BASE_URL: Type.Optional(setting.url({ description: 'origin of absolute URLs; default http://localhost:$PORT' })),
  PURCHASE_WAIT_MS: setting.int({ default: 20_000, min: 0, description: 'how long POST /shipments and void wait before 202' }),
  PURCHASE_DEADLINE_MS: setting.int({ default: 15 * 60_000, min: 1000, description: 'how long a purchase keeps trying an unreachable carrier' }),
  LABEL_URL_TTL_SECONDS: setting.int({ default: 300, min: 1, description: 'lifetime of a signed label URL' }),
  WEBHOOK_ALLOW_PRIVATE: setting.oneOf(['0', '1'], { default: '0', description: '1 allows webhook URLs on private networks and plain http' }),
  LOG_LEVEL: setting.oneOf(LOG_LEVELS, { default: 'info', description: 'pino level' }),
  CARRIER_TIMEOUT_MS: setting.int({ default: 5000, min: 100, description: 'timeout of every carrier HTTP call' }),
  CARRIER_SETTLE_MS: Type.Optional(setting.int({ min: 100, description: 'settle window of carriers without idempotency keys' })),
  CARRIER_TRACKING_SHARE: setting.int({ default: 25, min: 0, max: 90, description: "percent of each carrier's requests per second given to tracking polls on their own queue (0: one shared queue)" }),
  CARD_PROCESSOR_URL: Type.Optional(setting.url({ description: "the card processor's base URL; default the simulator's /cardpay/v1" })),
  TRUSTED_PROXIES: setting.list(Type.String({ format: 'config-cidr' }), {
    description: 'CIDR list of proxies whose X-Forwarded-For is honoured',
    must: 'list CIDR blocks (10.0.0.0/8, ::1/128) separated by commas',
  }),
  TASK_QUEUE_PREFIX: setting.text({ default: '', description: 'prefix of every task queue' }),
  SIGNING_SECRET: Type.Optional(
    setting.text({ minLength: 16, must: 'be 16 characters at least', secret: true, description: 'signs label URLs; a development value outside production' }),
  ),
  WEBHOOK_SECRET_KEY: Type.Optional(setting.text({ secret: true, description: 'encrypts webhook signing secrets at rest' })),
  TRACKING_POLL_MIN_MS: setting.int({ default: 15 * 60_000, min: 10, description: 'floor of every wait of the tracking schedule' }),
  TRACKING_POLL_MAX_MS: setting.int({ default: 12 * 3600_000, min: 10, description: 'ceiling of every wait of the tracking schedule' }),
  TRACKING_CONTINUE_AS_NEW_AFTER: Type.Optional(setting.int({ min: 1, description: 'continue-as-new after this many polls (tests)' })),
  WORKER_MAX_CONCURRENT_ACTIVITIES: setting.int({ default: 100, min: 1, description: 'worker tuning per process' }),
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: setting.int({ default: 40, min: 2, description: 'worker tuning per process' }),
  WORKER_MAX_CACHED_WORKFLOWS: setting.int({ default: 1000, min: 0, description: 'worker tuning per process' }),
  WORKER_SHUTDOWN_GRACE_MS: setting.int({ default: 30_000, min: 0, description: 'how long a worker drains after SIGTERM' }),
  WORKER_METRICS_PORT: setting.port(0, 'where a worker serves Prometheus metrics (0: off)'),
  WORKFLOW_BUNDLE_PATH: Type.Optional(setting.text({ description: 'the prebuilt workflow bundle workers load' })),
  WORKER_DEPLOYMENT_NAME: setting.text({ default: 'parcel-shipping', description: 'the worker deployment of this build' }),
  WORKER_BUILD_ID: Type.Optional(setting.text({ description: 'the worker build (Worker Versioning)' })),
  API_SHUTDOWN_GRACE_MS: setting.int({ default: 30_000, min: 0, description: 'how long the API finishes requests after SIGTERM' }),
  REQUEST_TIMEOUT_MS: setting.int({ default: 30_000, min: 1000, description: "how long a request's headers and body may take to arrive (then 408)" }),
  ORPHAN_SWEEP_INTERVAL_MS: setting.int({ default: 60_000, min: 0, description: 'how often pending rows without a workflow are swept (0: never)' }),
  // Far longer than an API takes from recording a purchase to starting its workflow.
  ORPHAN_SWEEP_AFTER_MS: setting.int({ default: 120_000, min: 1000, description: 'age of a pending row the sweep fails (and of an undelivered event, and of a closed run whose shipment it settles)' }),
  DATABASE_POOL_MAX: setting.int({ default: 20, min: 1, description: "connections in each process's PostgreSQL pool" }),
  STRAY_LABEL_SETTLE_MS: setting.int({ default: 2 * 60_000, min: 0, description: 'how long a failed purchase looks for a stray label' }),
  PAYLOAD_ENCRYPTION_KEY: Type.Optional(
    setting.text({ pattern: KEY32_PATTERN, must: 'be 32 bytes, base64', secret: true, description: 'AES-256-GCM key of the payload codec' }),
  ),
  PAYLOAD_DECRYPTION_KEYS: setting.list(Type.String({ pattern: KEY32_PATTERN }), {
    description: 'retired payload keys that still decrypt',
    must: 'list keys of 32 bytes, base64, separated by commas',
    secret: true,
  }),
  ADDRESS_RATE_LIMIT: setting.text({
    default: '100/10',
    pattern: '^0*[1-9][0-9]*/0*[1-9][0-9]*$',
    must: 'look like 100/10 (requests/seconds)',
    description: 'unauthenticated and refused requests per client address',
  }),
  WEBHOOK_ACCOUNT_CONCURRENCY: setting.int({ default: 8, min: 1, description: 'webhook attempts one account may have in flight per worker' }),
  CODEC_PORT: setting.port(8888, 'where npm run codec-server listens'),
  CODEC_HOST: setting.text({ default: '127.0.0.1', description: 'where npm run codec-server listens' }),
  // OpenTelemetry (runtime/tracing.ts): traces are on when an OTLP endpoint is named; the exporter
  // itself reads the other standard OTEL_* variables.
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(setting.text({ description: 'turns on OpenTelemetry traces over OTLP/HTTP' })),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(setting.text({ description: 'turns on OpenTelemetry traces over OTLP/HTTP' })),
  OTEL_SDK_DISABLED: Type.Optional(setting.text({ description: '`true` turns traces off' })),
  OTEL_TRACES_EXPORTER: Type.Optional(setting.text({ description: '`none` turns traces off' })),
  OTEL_SERVICE_NAME: Type.Optional(setting.text({ description: 'the service name on spans' })),
};

/** Per-carrier variables, `CARRIER_<CODE>_<SUFFIX>`, named by carrier code. */
export const CARRIER_VARIABLES: Record<string, TSchema> = {
  URL: setting.url({ description: "a carrier's real base URL instead of the simulator" }),
  RPS: setting.int({ min: 1, description: "a carrier's fleet-wide requests per second" }),
  WEBHOOK_SECRET: setting.text({ secret: true, description: 'the shared secret a carrier pushes scans with' }),
};

/** `CARRIER_ACME_URL` → `{ code: 'acme', suffix: 'URL' }`; a code may hold underscores (`CARRIER_DHL_EXPRESS_URL`). */
export function carrierVariable(name: string): { code: string; suffix: string } | undefined {
  const m = /^CARRIER_([A-Z0-9]+(?:_[A-Z0-9]+)*?)_(URL|RPS|WEBHOOK_SECRET)$/.exec(name);
  return m ? { code: m[1].toLowerCase(), suffix: m[2] } : undefined;
}

/** Whether the service reads a variable of this name (deploy checks: a typo fails), the real carriers' settings among them. */
export function isConfigVariable(name: string, realCarriers: readonly CarrierSettings[] = []): boolean {
  return Object.hasOwn(CONFIG_VARIABLES, name) || carrierVariable(name) !== undefined || Object.hasOwn(realCarrierVariables(realCarriers), name);
}
